// Leaderboard, top participants and popular entry (spec/openapi.yaml; docs/getting-started.md, Contests).
// The leaderboard reads the top `limit` entries from the (contest_id, score desc, created_at_ms, id) index and
// computes each row's rank from contest_score_counts (entries per score), so neither depends on how many
// entries the contest holds.
import type { Em } from '../../db/orm.js';
import { type ContestBoardsRepository } from '../../db/repositories/contest-boards.repository.js';
import { avatarSeed } from '../identity/avatar-seed.js';
import { contestNotFound, isPublicContest, loadContest, loadScoreCounts, type ContestRecord, type PublicContestRecord } from './records.js';
import { rankFromCounts } from './scoring.js';
import { repos } from '../../db/repos.js';

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

type BoardRow = Awaited<ReturnType<ContestBoardsRepository['leaderboardTop']>>[number];
type UserRow = { user_id: string; handle: string | null; x_handle: string | null; x_avatar_url: string | null };

/** The public face of a user on the leaderboard and top participants. */
function userFields(r: UserRow) {
  return { userId: r.user_id, handle: r.handle, xHandle: r.x_handle, xAvatarUrl: r.x_avatar_url, avatarSeed: avatarSeed(r.user_id) };
}

/**
 * One leaderboard row. `hidden` (the contest's picks are hidden while betting is open): nothing that
 * depends on picks is reported, for anyone (rank 1, 0 resolved wins, every pick open), so a market
 * resolved or voided early cannot reveal who picked what (spec/openapi.yaml getContestLeaderboard).
 */
function toRow(r: BoardRow, c: ContestRecord, counts: Array<{ score: number; entries: number }>, hidden: boolean): LeaderboardRow {
  const payout = r.payout;
  return {
    entryId: r.id,
    rank: hidden ? 1 : rankFromCounts(counts, r.score),
    ...userFields(r),
    entryIndex: r.entry_index,
    resolvedWinCount: hidden ? 0 : r.resolved_win_count,
    openLegCount: hidden ? r.pick_count : r.pick_count - r.resolved_leg_count,
    payout,
    netPayout: payout === null ? null : payout - c.betAmount,
  };
}

/** The public part of a leaderboard: the top slice, with what the caller's rows are ranked against. */
export interface PublicBoard {
  contest: ContestRecord;
  counts: Array<{ score: number; entries: number }>;
  entries: LeaderboardRow[];
  /** Picks are hidden (betting open on a hidden_while_betting_open contest): rows report nothing of them. */
  hidden: boolean;
}

export async function leaderboardTop(em: Em, contestId: string, limit: number, nowMs = Date.now()): Promise<PublicBoard> {
  const contest = await loadContest(em, contestId);
  const counts = await loadScoreCounts(em, contestId);
  const hidden = !picksVisible(contest, nowMs);
  const entries = (await repos(em).contestBoards.leaderboardTop(contestId, limit)).map((r) => toRow(r, contest, counts, hidden));
  return { contest, counts, entries, hidden };
}

/** The user's rows outside the top slice of `board`, ranked against its score counts (one statement). */
export async function callerRowsOf(em: Em, board: PublicBoard, userId: string): Promise<LeaderboardRow[]> {
  const inTop = new Set(board.entries.map((r) => r.entryId));
  const mine = await repos(em).contestBoards.leaderboardOfUser(board.contest.id, userId);
  return mine.map((r) => toRow(r, board.contest, board.counts, board.hidden)).filter((r) => !inTop.has(r.entryId));
}

export async function leaderboard(em: Em, contestId: string, limit: number, callerUserId: string | null): Promise<Leaderboard> {
  const board = await leaderboardTop(em, contestId, limit);
  const callerRows = callerUserId ? await callerRowsOf(em, board, callerUserId) : null;
  return { totalEntries: board.contest.entriesFilled, entries: board.entries, callerRows };
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

/** Users ranked by payouts across contests of `{id}`'s category and game type resolved in the window. */
export async function topParticipants(
  em: Em,
  contestId: string,
  windowMs: number,
  limit: number,
  nowMs = Date.now(),
): Promise<TopParticipant[]> {
  return (await topParticipantsAt(em, contestId, windowMs, limit, nowMs)).participants;
}

/**
 * topParticipants() with the instant from which the clock alone can change the answer: the oldest contest in
 * the window leaving it, or the next resolution time after now entering it (null: neither exists).
 */
export async function topParticipantsAt(
  em: Em,
  contestId: string,
  windowMs: number,
  limit: number,
  nowMs: number,
): Promise<{ participants: TopParticipant[]; validUntilMs: number | null }> {
  const c = await loadPublicContest(em, contestId);
  const repo = repos(em).contestBoards;
  const range = { category: c.category, gameType: c.gameType, fromMs: Math.max(0, nowMs - windowMs), toMs: nowMs };
  const rows = await repo.topParticipants({ ...range, limit });
  const bounds = await repo.resolutionTimesAround(range);
  const edges = [
    bounds.oldest_in === null ? Infinity : bounds.oldest_in + windowMs + 1,
    bounds.next_in === null ? Infinity : bounds.next_in,
  ];
  const validUntilMs = Math.min(...edges);
  return {
    participants: rows.map((r) => ({ ...userFields(r), wonCount: r.won, totalWinnings: r.total })),
    validUntilMs: Number.isFinite(validUntilMs) ? validUntilMs : null,
  };
}

/**
 * The visibility rule of spec/openapi.yaml (hidden_while_betting_open): picks of a contest configured hidden_while_betting_open
 * are shown nowhere (profiles, popular entry) until betting closes.
 */
export function picksVisible(c: Pick<ContestRecord, 'entryVisibility' | 'bettingClosesMs'>, nowMs: number): boolean {
  return c.entryVisibility === 'visible' || nowMs >= c.bettingClosesMs;
}

export interface PopularEntry {
  totalEntries: number;
  /** False while the visibility rule hides picks: then `markets` is empty. */
  visible: boolean;
  /** While hidden: when the picks show (betting_closes_ms). */
  hiddenUntilMs?: number;
  markets: Array<{ marketId: number; yesCount: number; noCount: number }>;
}

/** Pick counts per market, from the counters kept with each entry; none while picks are hidden. */
export async function popularEntry(em: Em, contestId: string, nowMs = Date.now()): Promise<PopularEntry> {
  const c = await loadPublicContest(em, contestId);
  if (!picksVisible(c, nowMs)) return { totalEntries: c.entriesFilled, visible: false, markets: [], hiddenUntilMs: c.bettingClosesMs };
  const rows = await repos(em).contestBoards.pickCounts(contestId);
  return {
    totalEntries: c.entriesFilled,
    visible: true,
    markets: rows.map((r) => ({ marketId: r.market_id, yesCount: r.up_count, noCount: r.down_count })),
  };
}
