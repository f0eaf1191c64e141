// Contest rows as the domain sees them (camelCase, bigint micros) and the loaders every contest module
// shares. The SQL for contests lives in src/domain/contests/*; handlers map these records to the wire.
import type { Em } from '../../db/orm.js';
import { NotFound } from '../errors.js';
import type { Category } from './images.js';
import type { Direction } from './scoring.js';

export type GameType = 'lineups' | 'outcast' | 'survivor' | 'streak';
export type ContestStatus = 'open' | 'resolved' | 'voided';
export type MarketStatus = 'OPEN' | 'RESOLVED' | 'VOIDED';
export type EntryVisibility = 'visible' | 'hidden_while_betting_open';
export type PickOutcome = 'pending' | 'won' | 'lost' | 'voided';

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
  outcome: 'YES' | 'NO' | null;
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
export const isPublicContest = (c: ContestRecord): c is PublicContestRecord => (PUBLIC_GAME_TYPES as readonly GameType[]).includes(c.gameType);
/** Game types that take entries through POST /v1/contests/{id}/entries. */
export const ENTRY_GAME_TYPES: readonly GameType[] = ['lineups', 'outcast'];

export const contestNotFound = () => new NotFound('CONTEST_NOT_FOUND', 'Contest not found.');

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export const CONTEST_COLUMNS = `id::text as id, title, category, game_type, description, status, bet_amount::text as bet_amount,
  protocol_prize_pool::text as protocol_prize_pool, entry_cap, max_entries_per_user, entries_filled, open_market_count,
  entry_opens_at_ms::text as entry_opens_at_ms, betting_closes_ms::text as betting_closes_ms, live_ends_at_ms::text as live_ends_at_ms,
  bet_type_kind, bet_type_value, winning_split_bps, image_id, entry_visibility, created_at_ms::text as created_at_ms,
  resolved_at_ms::text as resolved_at_ms`;

export type ContestRow = Record<string, unknown>;

export function contestFromRow(r: ContestRow): ContestRecord {
  return {
    id: String(r.id),
    title: String(r.title),
    category: r.category as Category,
    gameType: r.game_type as GameType,
    description: (r.description as string | null) ?? null,
    status: r.status as ContestStatus,
    betAmount: BigInt(r.bet_amount as string),
    prizePool: BigInt(r.protocol_prize_pool as string),
    entryCap: num(r.entry_cap),
    maxEntriesPerUser: num(r.max_entries_per_user),
    entriesFilled: num(r.entries_filled),
    openMarketCount: num(r.open_market_count),
    entryOpensAtMs: numOrNull(r.entry_opens_at_ms),
    bettingClosesMs: num(r.betting_closes_ms),
    liveEndsAtMs: numOrNull(r.live_ends_at_ms),
    betType: { kind: r.bet_type_kind as 'num_bets' | 'bets_per_category', value: num(r.bet_type_value) },
    winningSplitBps: parseIntArray(r.winning_split_bps),
    imageId: (r.image_id as string | null) ?? null,
    entryVisibility: r.entry_visibility as EntryVisibility,
    createdAtMs: num(r.created_at_ms),
    resolvedAtMs: numOrNull(r.resolved_at_ms),
  };
}

/** pg returns int[] as an array; PGlite may too; a '{1,2}' literal is accepted for safety. */
function parseIntArray(v: unknown): number[] {
  if (Array.isArray(v)) return v.map(Number);
  if (typeof v === 'string') return v.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number);
  return [];
}

export const MARKET_COLUMNS = `market_id::text as market_id, contest_id::text as contest_id, position, category, name, description, status, outcome,
  source_kind, source_event_id, source_market_id, betting_closes_at_ms::text as betting_closes_at_ms,
  live_ends_at_ms::text as live_ends_at_ms, resolution_time_ms::text as resolution_time_ms, up_count, down_count`;

export function marketFromRow(r: ContestRow): ContestMarketRecord {
  return {
    marketId: num(r.market_id),
    contestId: String(r.contest_id),
    position: num(r.position),
    category: String(r.category),
    name: String(r.name),
    description: (r.description as string | null) ?? null,
    status: r.status as MarketStatus,
    outcome: (r.outcome as 'YES' | 'NO' | null) ?? null,
    sourceKind: (r.source_kind as string | null) ?? null,
    sourceEventId: (r.source_event_id as string | null) ?? null,
    sourceMarketId: (r.source_market_id as string | null) ?? null,
    bettingClosesAtMs: numOrNull(r.betting_closes_at_ms),
    liveEndsAtMs: numOrNull(r.live_ends_at_ms),
    resolutionTimeMs: numOrNull(r.resolution_time_ms),
    upCount: num(r.up_count),
    downCount: num(r.down_count),
  };
}

/** The contest, optionally locked FOR UPDATE (inside a transaction); CONTEST_NOT_FOUND when absent. */
export async function loadContest(em: Em, id: string, opts: { forUpdate?: boolean } = {}): Promise<ContestRecord> {
  const rows = await em.execute<ContestRow[]>(`select ${CONTEST_COLUMNS} from contests where id = ?${opts.forUpdate ? ' for update' : ''}`, [id]);
  if (!rows[0]) throw contestNotFound();
  return contestFromRow(rows[0]);
}

export async function loadMarkets(em: Em, contestId: string): Promise<ContestMarketRecord[]> {
  const rows = await em.execute<ContestRow[]>(`select ${MARKET_COLUMNS} from contest_markets where contest_id = ? order by position`, [contestId]);
  return rows.map(marketFromRow);
}

/** The outcome of a pick given its market's state. */
export function pickOutcome(direction: Direction, market: { status: MarketStatus; outcome: 'YES' | 'NO' | null }): PickOutcome {
  if (market.status === 'OPEN') return 'pending';
  if (market.status === 'VOIDED' || market.outcome === null) return 'voided';
  return (market.outcome === 'YES') === (direction === 'up') ? 'won' : 'lost';
}

/** Entries per score in a contest: ranks are computed from this small table (see scoring.rankFromCounts). */
export async function loadScoreCounts(em: Em, contestId: string): Promise<Array<{ score: number; entries: number }>> {
  const rows = await em.execute<Array<{ score: number; entries: number }>>('select score, entries from contest_score_counts where contest_id = ? and entries > 0', [contestId]);
  return rows.map((r) => ({ score: Number(r.score), entries: Number(r.entries) }));
}

/** Rebuilds a contest's score histogram from its entries (after a market resolution changed scores). */
export async function rebuildScoreCounts(em: Em, contestId: string): Promise<void> {
  await em.execute('delete from contest_score_counts where contest_id = ?', [contestId], 'run');
  await em.execute(
    `insert into contest_score_counts (contest_id, score, entries)
     select contest_id, score, count(*)::int from contest_entries where contest_id = ? group by contest_id, score`,
    [contestId],
    'run',
  );
}
