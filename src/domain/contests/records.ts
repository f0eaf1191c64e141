// Contest rows as the domain sees them (camelCase, bigint micros) and the loaders every contest module
// shares. The SQL for contests lives in src/domain/contests/*; handlers map these records to the wire.
import type { Em } from '../../db/orm.js';
import { type ContestMarketRow, type ContestRow } from '../../db/repositories/contests.repository.js';
import { NotFound } from '../errors.js';
import type { Category } from './images.js';
import type { Direction, MarketOutcome, SettledOutcome } from '../../db/vocabulary.js';
import { repos } from '../../db/repos.js';

export type GameType = 'lineups' | 'outcast' | 'survivor' | 'streak';
export type ContestStatus = 'open' | 'resolved' | 'voided';
export type MarketStatus = 'OPEN' | 'RESOLVED' | 'VOIDED';
export type EntryVisibility = 'visible' | 'hidden_while_betting_open';
export type PickOutcome = 'pending' | SettledOutcome;

export interface ContestRecord {
  id: string;
  title: string;
  category: Category;
  gameType: GameType;
  description: string | null;
  status: ContestStatus;
  betAmount: bigint;
  prizePool: bigint;
  entryCap: number;
  maxEntriesPerUser: number;
  entriesFilled: number;
  openMarketCount: number;
  entryOpensAtMs: number | null;
  bettingClosesMs: number;
  liveEndsAtMs: number | null;
  betType: { kind: 'num_bets' | 'bets_per_category'; value: number };
  winningSplitBps: number[];
  imageId: string | null;
  entryVisibility: EntryVisibility;
  createdAtMs: number;
  resolvedAtMs: number | null;
}

export interface ContestMarketRecord {
  marketId: number;
  contestId: string;
  position: number;
  category: string;
  name: string;
  description: string | null;
  status: MarketStatus;
  outcome: MarketOutcome | null;
  sourceKind: string | null;
  sourceEventId: string | null;
  sourceMarketId: string | null;
  bettingClosesAtMs: number | null;
  liveEndsAtMs: number | null;
  resolutionTimeMs: number | null;
  upCount: number;
  downCount: number;
}

/** Game types served by the public detail, leaderboard insight and popular-entry routes. */
export const PUBLIC_GAME_TYPES = ['lineups', 'outcast'] as const satisfies readonly GameType[];
export type PublicGameType = (typeof PUBLIC_GAME_TYPES)[number];
export type PublicContestRecord = ContestRecord & { gameType: PublicGameType };
export const isPublicContest = (c: ContestRecord): c is PublicContestRecord =>
  (PUBLIC_GAME_TYPES as readonly GameType[]).includes(c.gameType);
/** Game types that take entries through POST /v1/contests/{id}/entries. */
export const ENTRY_GAME_TYPES: readonly GameType[] = ['lineups', 'outcast'];

export const contestNotFound = () => new NotFound('CONTEST_NOT_FOUND', 'Contest not found.');

export function contestFromRow(r: ContestRow): ContestRecord {
  return {
    id: r.id,
    title: r.title,
    category: r.category,
    gameType: r.game_type,
    description: r.description,
    status: r.status,
    betAmount: r.bet_amount,
    prizePool: r.protocol_prize_pool,
    entryCap: r.entry_cap,
    maxEntriesPerUser: r.max_entries_per_user,
    entriesFilled: r.entries_filled,
    openMarketCount: r.open_market_count,
    entryOpensAtMs: r.entry_opens_at_ms,
    bettingClosesMs: r.betting_closes_ms,
    liveEndsAtMs: r.live_ends_at_ms,
    betType: { kind: r.bet_type_kind, value: r.bet_type_value },
    winningSplitBps: r.winning_split_bps.map(Number),
    imageId: r.image_id,
    entryVisibility: r.entry_visibility,
    createdAtMs: r.created_at_ms,
    resolvedAtMs: r.resolved_at_ms,
  };
}

export function marketFromRow(r: ContestMarketRow): ContestMarketRecord {
  return {
    marketId: r.market_id,
    contestId: r.contest_id,
    position: r.position,
    category: r.category,
    name: r.name,
    description: r.description,
    status: r.status,
    outcome: r.outcome,
    sourceKind: r.source_kind,
    sourceEventId: r.source_event_id,
    sourceMarketId: r.source_market_id,
    bettingClosesAtMs: r.betting_closes_at_ms,
    liveEndsAtMs: r.live_ends_at_ms,
    resolutionTimeMs: r.resolution_time_ms,
    upCount: r.up_count,
    downCount: r.down_count,
  };
}

/** The contest, optionally locked FOR UPDATE (inside a transaction); CONTEST_NOT_FOUND when absent. */
export async function loadContest(em: Em, id: string, opts: { forUpdate?: boolean } = {}): Promise<ContestRecord> {
  const row = await repos(em).contests.findContest(id, opts);
  if (!row) throw contestNotFound();
  return contestFromRow(row);
}

export async function loadMarkets(em: Em, contestId: string): Promise<ContestMarketRecord[]> {
  return (await repos(em).contests.marketsOf(contestId)).map(marketFromRow);
}

/** The outcome of a pick given its market's state. */
export function pickOutcome(direction: Direction, market: { status: MarketStatus; outcome: MarketOutcome | null }): PickOutcome {
  if (market.status === 'OPEN') return 'pending';
  if (market.status === 'VOIDED' || market.outcome === null) return 'voided';
  return (market.outcome === 'YES') === (direction === 'up') ? 'won' : 'lost';
}

/** Entries per score in a contest: ranks are computed from this small table (see scoring.rankFromCounts). */
export async function loadScoreCounts(em: Em, contestId: string): Promise<Array<{ score: number; entries: number }>> {
  return repos(em).contests.scoreCounts(contestId);
}

/** Rebuilds a contest's score histogram from its entries (after a market resolution changed scores). */
export async function rebuildScoreCounts(em: Em, contestId: string): Promise<void> {
  await repos(em).contests.rebuildScoreCounts(contestId);
}
