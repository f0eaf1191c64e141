// Leaderboard, top participants and popular entry (interface-spec 2.6-2.8, product-design section 5).
// The leaderboard reads the top `limit` entries from the (contest_id, score desc, created_at_ms, id) index and
// computes each row's rank from contest_score_counts (entries per score), so neither depends on how many
// entries the contest holds.
import type { Em } from '../../db/orm.js';
import { avatarSeed } from '../identity/avatar-seed.js';
import { contestNotFound, isPublicContest, loadContest, loadScoreCounts, type ContestRecord, type PublicContestRecord } from './records.js';
import { rankFromCounts } from './scoring.js';

export interface LeaderboardRow {
  entryId: string;
  rank: number;
  userId: string;
  entryIndex: number;
  handle: string | null;
  xHandle: string | null;
  xAvatarUrl: string | null;
  avatarSeed: number;
  resolvedWinCount: number;
  openLegCount: number;
  payout: bigint | null;
  netPayout: bigint | null;
}

export interface Leaderboard {
  totalEntries: number;
  entries: LeaderboardRow[];
  /** Null without a user; the user's rows outside the top slice otherwise. */
  callerRows: LeaderboardRow[] | null;
}

const ENTRY_COLUMNS = `e.id::text as id, e.user_id::text as user_id, e.entry_index, e.score, e.pick_count, e.resolved_leg_count,
  e.resolved_win_count, e.payout::text as payout, u.handle, u.x_handle, u.x_avatar_url`;

type Row = Record<string, unknown>;

export const LEADERBOARD_TOP_SQL = `select ${ENTRY_COLUMNS} from contest_entries e join users u on u.id = e.user_id
  where e.contest_id = ? order by e.score desc, e.created_at_ms, e.id limit ?`;

/** The public face of a user on the leaderboard and top participants. */
function userFields(r: Row) {
  const userId = String(r.user_id);
  return {
    userId,
    handle: (r.handle as string | null) ?? null,
    xHandle: (r.x_handle as string | null) ?? null,
    xAvatarUrl: (r.x_avatar_url as string | null) ?? null,
    avatarSeed: avatarSeed(userId),
  };
}

function toRow(r: Row, c: ContestRecord, counts: Array<{ score: number; entries: number }>): LeaderboardRow {
  const payout = r.payout === null || r.payout === undefined ? null : BigInt(r.payout as string);
  return {
    entryId: String(r.id),
    rank: rankFromCounts(counts, Number(r.score)),
    ...userFields(r),
    entryIndex: Number(r.entry_index),
    resolvedWinCount: Number(r.resolved_win_count),
    openLegCount: Number(r.pick_count) - Number(r.resolved_leg_count),
    payout,
    netPayout: payout === null ? null : payout - c.betAmount,
  };
}

export async function leaderboard(em: Em, contestId: string, limit: number, callerUserId: string | null): Promise<Leaderboard> {
  const c = await loadContest(em, contestId);
  const counts = await loadScoreCounts(em, contestId);
  const top = (await em.execute<Row[]>(LEADERBOARD_TOP_SQL, [contestId, limit])).map((r) => toRow(r, c, counts));
  let callerRows: LeaderboardRow[] | null = null;
  if (callerUserId) {
    const inTop = new Set(top.map((r) => r.entryId));
    const mine = await em.execute<Row[]>(
      `select ${ENTRY_COLUMNS} from contest_entries e join users u on u.id = e.user_id
        where e.user_id = ? and e.contest_id = ? order by e.score desc, e.created_at_ms, e.id`,
      [callerUserId, contestId],
    );
    callerRows = mine.map((r) => toRow(r, c, counts)).filter((r) => !inTop.has(r.entryId));
  }
  return { totalEntries: c.entriesFilled, entries: top, callerRows };
}

/** Lineups and outcast contests only: survivor and streak are CONTEST_NOT_FOUND on the public insight routes. */
export async function loadPublicContest(em: Em, contestId: string): Promise<PublicContestRecord> {
  const c = await loadContest(em, contestId);
  if (!isPublicContest(c)) throw contestNotFound();
  return c;
}

export interface TopParticipant {
  userId: string;
  handle: string | null;
  xHandle: string | null;
  xAvatarUrl: string | null;
  avatarSeed: number;
  wonCount: number;
  totalWinnings: bigint;
}

export const TOP_PARTICIPANTS_SQL = `
  select w.user_id::text as user_id, w.total::text as total, w.won, u.handle, u.x_handle, u.x_avatar_url
    from (select e.user_id, sum(e.payout) as total, count(distinct e.contest_id) filter (where e.payout > c.bet_amount)::int as won
            from contests c join contest_entries e on e.contest_id = c.id and e.payout > 0
           where c.status = 'resolved' and c.category = ? and c.game_type = ? and c.resolved_at_ms between ? and ?
           group by e.user_id) w
    join users u on u.id = w.user_id
   order by w.total desc, w.won desc, w.user_id limit ?`;

/** Users ranked by payouts across contests of `{id}`'s category and game type resolved in the window. */
export async function topParticipants(em: Em, contestId: string, windowMs: number, limit: number, nowMs = Date.now()): Promise<TopParticipant[]> {
  const c = await loadPublicContest(em, contestId);
  const rows = await em.execute<Row[]>(TOP_PARTICIPANTS_SQL, [c.category, c.gameType, Math.max(0, nowMs - windowMs), nowMs, limit]);
  return rows.map((r) => ({
    ...userFields(r),
    wonCount: Number(r.won),
    totalWinnings: BigInt(r.total as string),
  }));
}

/**
 * The visibility rule of interface-spec section 3: picks of a contest configured hidden_while_betting_open
 * are shown nowhere (profiles, popular entry) until betting closes.
 */
export function picksVisible(c: Pick<ContestRecord, 'entryVisibility' | 'bettingClosesMs'>, nowMs: number): boolean {
  return c.entryVisibility === 'visible' || nowMs >= c.bettingClosesMs;
}

export interface PopularEntry {
  totalEntries: number;
  /** False while the visibility rule hides picks: then `markets` is empty. */
  visible: boolean;
  markets: Array<{ marketId: number; yesCount: number; noCount: number }>;
}

/** Pick counts per market, from the counters kept with each entry; none while picks are hidden. */
export async function popularEntry(em: Em, contestId: string, nowMs = Date.now()): Promise<PopularEntry> {
  const c = await loadPublicContest(em, contestId);
  if (!picksVisible(c, nowMs)) return { totalEntries: c.entriesFilled, visible: false, markets: [] };
  const rows = await em.execute<Row[]>('select market_id::text as market_id, up_count, down_count from contest_markets where contest_id = ? order by position', [contestId]);
  return {
    totalEntries: c.entriesFilled,
    visible: true,
    markets: rows.map((r) => ({ marketId: Number(r.market_id), yesCount: Number(r.up_count), noCount: Number(r.down_count) })),
  };
}
