// Contest records to their wire shapes (snake_case; int64 amounts as JSON integers, which the contest
// creation rules keep below 2^53).
import type {
  ContestById,
  CreateContestRequest,
  ContestDetail,
  ContestLobbyRow,
  ContestMarket,
  LeaderboardRow as LeaderboardRowWire,
} from '../../../generated/openapi/types.gen.js';
import type { LeaderboardRow } from '../../domain/contests/board.js';
import type { NewContest } from '../../domain/contests/create.js';
import type { EntryRecord } from '../../domain/contests/entries.js';
import { imageUrl } from '../../domain/contests/images.js';
import type { ProfileContest } from '../../domain/contests/profile.js';
import type { ContestMarketRecord, ContestRecord } from '../../domain/contests/records.js';
import { totalPot } from '../../domain/contests/scoring.js';

const n = (v: bigint) => Number(v);
const nOrNull = (v: bigint | null) => (v === null ? null : Number(v));

/** The lobby-row fields (spec/openapi.yaml, the lobby row of listContests) except `caller`. */
function commonFields(c: ContestRecord): Omit<ContestLobbyRow, 'caller' | 'created_at_ms' | 'image_url'> {
  return {
    contest_id: c.id,
    title: c.title,
    category: c.category,
    status: c.status,
    bet_amount_micros: n(c.betAmount),
    protocol_prize_pool_micros: n(c.prizePool),
    total_pot_micros: n(totalPot(c.prizePool, c.entriesFilled, c.betAmount)),
    entries_filled: c.entriesFilled,
    entry_cap: c.entryCap,
    entry_opens_at_ms: c.entryOpensAtMs,
    betting_closes_ms: c.bettingClosesMs,
    live_ends_at_ms: c.liveEndsAtMs,
    resolved_at_ms: c.resolvedAtMs,
  };
}

export function lobbyRowWire(c: ContestRecord, joined: boolean | null): ContestLobbyRow {
  return {
    ...commonFields(c),
    caller: joined === null ? null : { joined },
    created_at_ms: c.createdAtMs,
    image_url: imageUrl(c.imageId, c.category),
  };
}

export function marketWire(m: ContestMarketRecord): ContestMarket {
  return {
    market_id: m.marketId,
    category: m.category,
    name: m.name,
    description: m.description,
    status: m.status,
    outcome: m.outcome,
    source_kind: m.sourceKind,
    source_event_id: m.sourceEventId,
    source_market_id: m.sourceMarketId,
    betting_closes_at_ms: m.bettingClosesAtMs,
    live_ends_at_ms: m.liveEndsAtMs,
    resolution_time_ms: m.resolutionTimeMs,
  };
}

export function contestByIdWire(c: ContestRecord, markets: readonly ContestMarketRecord[], joined: boolean | null): ContestById {
  return {
    ...lobbyRowWire(c, joined),
    description: c.description,
    bet_type: c.betType,
    game_type: c.gameType,
    winning_split_bps: c.winningSplitBps,
    entry_visibility: c.entryVisibility,
    max_entries_per_user: c.maxEntriesPerUser,
    markets: markets.map(marketWire),
  };
}

export function contestDetailWire(p: ProfileContest): ContestDetail {
  const c = p.contest;
  return {
    ...commonFields(c),
    created_at_ms: c.createdAtMs,
    image_url: imageUrl(c.imageId, c.category),
    description: c.description,
    bet_type: c.betType,
    game_type: c.gameType,
    winning_split_bps: c.winningSplitBps,
    markets: p.markets.map(marketWire),
    profile_owner: {
      joined: p.owner.joined,
      entry_visibility: p.owner.entryVisibility,
      entries: p.owner.entries.map((e) => ({
        entry_index: e.entryIndex,
        created_at_ms: e.createdAtMs,
        picks: e.picks.map((x) => ({ market_id: x.marketId, direction: x.direction, outcome: x.outcome })),
        open_leg_count: e.openLegCount,
        resolved_win_count: e.resolvedWinCount,
        payout_micros: nOrNull(e.payout),
        net_payout_micros: nOrNull(e.netPayout),
        rank: e.rank,
      })),
    },
  };
}

export function leaderboardRowWire(r: LeaderboardRow): LeaderboardRowWire {
  return {
    rank: r.rank,
    user_id: r.userId,
    entry_index: r.entryIndex,
    handle: r.handle,
    x_handle: r.xHandle,
    x_avatar_url: r.xAvatarUrl,
    avatar_seed: r.avatarSeed,
    resolved_win_count: r.resolvedWinCount,
    open_leg_count: r.openLegCount,
    payout_micros: nOrNull(r.payout),
    net_payout_micros: nOrNull(r.netPayout),
  };
}

/** The create request as the domain's NewContest. */
export function contestOf(b: CreateContestRequest): NewContest {
  return {
    title: b.title,
    category: b.category,
    gameType: b.game_type,
    description: b.description,
    betAmount: BigInt(b.bet_amount_micros),
    prizePool: BigInt(b.protocol_prize_pool_micros),
    entryCap: b.entry_cap,
    maxEntriesPerUser: b.max_entries_per_user ?? 1,
    entryOpensAtMs: b.entry_opens_at_ms,
    bettingClosesMs: b.betting_closes_ms,
    liveEndsAtMs: b.live_ends_at_ms,
    betType: b.bet_type,
    winningSplitBps: b.winning_split_bps,
    imageId: b.image_id,
    entryVisibility: b.entry_visibility ?? 'hidden_while_betting_open',
    markets: b.markets.map((m) => ({
      category: m.category,
      name: m.name,
      description: m.description,
      sourceKind: m.source_kind,
      sourceEventId: m.source_event_id,
      sourceMarketId: m.source_market_id,
      bettingClosesAtMs: m.betting_closes_at_ms,
      liveEndsAtMs: m.live_ends_at_ms,
      resolutionTimeMs: m.resolution_time_ms,
    })),
  };
}

/** A created entry (createContestEntry's 201 body). */
export function entryWire(entry: EntryRecord) {
  return {
    contest_id: entry.contestId,
    entry_index: entry.entryIndex,
    created_at_ms: entry.createdAtMs,
    picks: entry.picks.map((p) => ({ market_id: p.marketId, direction: p.direction })),
  };
}
