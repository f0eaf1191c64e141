import { defineEntity, p } from '@mikro-orm/core';
import { DIRECTIONS, MARKET_OUTCOMES } from '../vocabulary.js';

// Contests, their markets, entries, picks and score histogram (migration ..._contests). Times are epoch
// milliseconds in int8 columns ('string' mode: see ledger.entity.ts); money is int8 micros.

export const ContestSchema = defineEntity({
  name: 'Contest',
  tableName: 'contests',
  properties: {
    id: p.uuid().primary(),
    title: p.text(),
    category: p.enum(['mentions', 'sports', 'culture'] as const),
    gameType: p.enum(['lineups', 'outcast', 'survivor', 'streak'] as const).fieldName('game_type'),
    description: p.text().nullable(),
    status: p.enum(['open', 'resolved', 'voided'] as const).default('open'),
    betAmount: p.bigint('string').fieldName('bet_amount'),
    protocolPrizePool: p.bigint('string').fieldName('protocol_prize_pool'),
    entryCap: p.integer().fieldName('entry_cap'),
    maxEntriesPerUser: p.integer().fieldName('max_entries_per_user').default(1),
    entriesFilled: p.integer().fieldName('entries_filled').default(0),
    openMarketCount: p.integer().fieldName('open_market_count').default(0),
    entryOpensAtMs: p.bigint('string').fieldName('entry_opens_at_ms').nullable(),
    bettingClosesMs: p.bigint('string').fieldName('betting_closes_ms'),
    liveEndsAtMs: p.bigint('string').fieldName('live_ends_at_ms').nullable(),
    betTypeKind: p.enum(['num_bets', 'bets_per_category'] as const).fieldName('bet_type_kind'),
    betTypeValue: p.integer().fieldName('bet_type_value'),
    winningSplitBps: p.array<number>(Number).fieldName('winning_split_bps').columnType('integer[]'),
    imageId: p.text().fieldName('image_id').nullable(),
    entryVisibility: p.enum(['visible', 'hidden_while_betting_open'] as const).fieldName('entry_visibility'),
    createdAtMs: p.bigint('string').fieldName('created_at_ms'),
    resolvedAtMs: p.bigint('string').fieldName('resolved_at_ms').nullable(),
    voidedAtMs: p.bigint('string').fieldName('voided_at_ms').nullable(),
  },
});

export const ContestMarketSchema = defineEntity({
  name: 'ContestMarket',
  tableName: 'contest_markets',
  properties: {
    /** From market_id_seq through a markets row of kind 'contest'. */
    marketId: p.bigint('string').primary().autoincrement(false).fieldName('market_id'),
    contestId: p.uuid().fieldName('contest_id'),
    position: p.integer(),
    category: p.text(),
    name: p.text(),
    description: p.text().nullable(),
    status: p.enum(['OPEN', 'RESOLVED', 'VOIDED'] as const).default('OPEN'),
    outcome: p.enum(MARKET_OUTCOMES).nullable(),
    sourceKind: p.text().fieldName('source_kind').nullable(),
    sourceEventId: p.text().fieldName('source_event_id').nullable(),
    sourceMarketId: p.text().fieldName('source_market_id').nullable(),
    bettingClosesAtMs: p.bigint('string').fieldName('betting_closes_at_ms').nullable(),
    liveEndsAtMs: p.bigint('string').fieldName('live_ends_at_ms').nullable(),
    resolutionTimeMs: p.bigint('string').fieldName('resolution_time_ms').nullable(),
    resolvedAtMs: p.bigint('string').fieldName('resolved_at_ms').nullable(),
    /** Picks per side, kept in each entry's transaction (popular entry, outcast minority). */
    upCount: p.integer().fieldName('up_count').default(0),
    downCount: p.integer().fieldName('down_count').default(0),
  },
});

export const ContestEntrySchema = defineEntity({
  name: 'ContestEntry',
  tableName: 'contest_entries',
  properties: {
    id: p.uuid().primary(),
    contestId: p.uuid().fieldName('contest_id'),
    userId: p.uuid().fieldName('user_id'),
    entryIndex: p.integer().fieldName('entry_index'),
    createdAtMs: p.bigint('string').fieldName('created_at_ms'),
    pickCount: p.integer().fieldName('pick_count'),
    resolvedWinCount: p.integer().fieldName('resolved_win_count').default(0),
    resolvedLegCount: p.integer().fieldName('resolved_leg_count').default(0),
    score: p.integer().default(0),
    payout: p.bigint('string').nullable(),
    rank: p.integer().nullable(),
    /** Unique per user: a second entry for one request cannot commit. */
    idempotencyKey: p.uuid().fieldName('idempotency_key').nullable(),
  },
});

export const ContestEntryPickSchema = defineEntity({
  name: 'ContestEntryPick',
  tableName: 'contest_entry_picks',
  properties: {
    entryId: p.uuid().primary().fieldName('entry_id'),
    marketId: p.bigint('string').primary().autoincrement(false).fieldName('market_id'),
    direction: p.enum(DIRECTIONS),
  },
});

/** Entries per score in a contest: ranks are sums over this small table, not counts over entries. */
export const ContestScoreCountSchema = defineEntity({
  name: 'ContestScoreCount',
  tableName: 'contest_score_counts',
  properties: {
    contestId: p.uuid().primary().fieldName('contest_id'),
    score: p.integer().primary(),
    entries: p.integer(),
  },
});
