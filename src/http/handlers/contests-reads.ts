// The public contest reads (lobby, contest by id, leaderboard, top participants, popular entry), served from
// the per-process page cache (src/http/page-cache.ts): the anonymous body is cached (serialized once), and
// the caller fields (lobby and detail `joined`, leaderboard `caller`) are read with one statement and cached
// per user and page in a cache of their own (`callers`, same TTL and invalidation, keyed by the user id, so
// never served to another caller), then put on a copy of the page, never into it; the copy's bytes are spliced
// from the page's (withCallerFields), not serialized again. A hit runs no SQL and forks no ORM: `ctx.db` is
// only touched inside a load.
import { callerRowsOf, leaderboardTop, popularEntry, topParticipantsAt } from '../../domain/contests/board.js';
import { joinedContests } from '../../domain/contests/entries.js';
import { clampLimit, listContests } from '../../domain/contests/lobby.js';
import { loadContest, loadMarkets } from '../../domain/contests/records.js';
import type {
  ContestById,
  ContestLobbyRow,
  Leaderboard as LeaderboardResponse,
  PopularEntry as PopularEntryResponse,
  TopParticipants as TopParticipantsResponse,
} from '../../../generated/openapi/types.gen.js';
import { NO_STORE, type Handler, type HandlersFor, type RequestContext } from '../handler.js';
import { callerCopy, preserialized } from '../json-body.js';
import { CROSS_CONTEST, type PageCache } from '../page-cache.js';
import { contestByIdWire, leaderboardRowWire, lobbyRowWire } from './contests-wire.js';

type ContestReadId = 'listContests' | 'getContest' | 'getContestLeaderboard' | 'getContestTopParticipants' | 'getContestPopularEntry';

const DEFAULT_TOP_WINDOW_MS = 604_800_000;

const callerOf = (ctx: RequestContext): string | null => (ctx.auth.kind === 'user' ? ctx.auth.userId : null);
/** Contest ids in keys and scopes as the database writes them (a path id may arrive in upper case). */
const idOf = (raw: string) => raw.toLowerCase();

/** A lobby page's contest ids as one key part, built once per page object. */
const idsKeys = new WeakMap<object, string>();
function idsKey(page: { contests: ReadonlyArray<{ contest_id: string }> }): string {
  let key = idsKeys.get(page);
  if (key === undefined) idsKeys.set(page, (key = page.contests.map((c) => c.contest_id).join(',')));
  return key;
}

export interface ContestReadCaches {
  /** The public pages. */
  pages: PageCache;
  /** The caller fields, per user and page. */
  callers: PageCache;
}

export function contestReadHandlers(caches: ContestReadCaches): HandlersFor<ContestReadId> {
  return {
    listContests: listContestsOp(caches),
    getContest: getContestOp(caches),
    getContestLeaderboard: getContestLeaderboardOp(caches),
    getContestTopParticipants: getContestTopParticipantsOp(caches.pages),
    getContestPopularEntry: getContestPopularEntryOp(caches.pages),
  };
}

const listContestsOp =
  ({ pages, callers }: ContestReadCaches): Handler<'listContests'> =>
  async ({ query: q }, ctx) => {
    const limit = clampLimit(q.limit, 20, 50);
    const key = `lobby|${q.status ?? ''}|${q.category ?? ''}|${limit}|${q.cursor ?? ''}`;
    const page = await pages.read(key, CROSS_CONTEST, async () => {
      const p = await listContests(ctx.db, { status: q.status, category: q.category, cursor: q.cursor, limit });
      return { value: preserialized({ contests: p.contests.map((c) => lobbyRowWire(c, null)), next_cursor: p.nextCursor }) };
    });
    const me = callerOf(ctx);
    if (!me) return { status: 200, body: page, headers: NO_STORE };
    // The caller values themselves are cached (one object per row), so their bytes are computed once.
    const fields = await callers.read(`lobby|${me}|${idsKey(page)}`, CROSS_CONTEST, async () => {
      const joined = await joinedContests(
        ctx.db,
        me,
        page.contests.map((c) => c.contest_id),
      );
      return { value: page.contests.map((c) => ({ joined: joined.has(c.contest_id) })) };
    });
    const body = callerCopy(page, fields, () => ({
      contests: page.contests.map((c, i): ContestLobbyRow => ({ ...c, caller: fields[i]! })),
      next_cursor: page.next_cursor,
    }));
    return { status: 200, body, headers: NO_STORE };
  };

const getContestOp =
  ({ pages, callers }: ContestReadCaches): Handler<'getContest'> =>
  async ({ params }, ctx) => {
    const id = idOf(params.id);
    const page = await pages.read(`contest|${id}`, id, async () => {
      const c = await loadContest(ctx.db, id);
      return { value: preserialized(contestByIdWire(c, await loadMarkets(ctx.db, id), null)) };
    });
    const me = callerOf(ctx);
    if (!me) return { status: 200, body: page, headers: NO_STORE };
    const caller = await callers.read(`contest|${me}|${id}`, id, async () => ({
      value: { joined: (await joinedContests(ctx.db, me, [page.contest_id])).has(page.contest_id) },
    }));
    const body = callerCopy(page, caller, (): ContestById => ({ ...page, caller }));
    return { status: 200, body, headers: NO_STORE };
  };

const getContestLeaderboardOp = ({ pages, callers }: ContestReadCaches): Handler<'getContestLeaderboard'> => {
  let boardLoads = 0;
  return async ({ params, query }, ctx) => {
    const id = idOf(params.id);
    const limit = clampLimit(query.limit, 10, 100);
    const page = await pages.read(`board|${id}|${limit}`, id, async () => {
      const board = await leaderboardTop(ctx.db, id, limit);
      const body: LeaderboardResponse = {
        total_entries: board.contest.entriesFilled,
        entries: board.entries.map(leaderboardRowWire),
        caller: null,
      };
      // While picks are hidden the page expires when betting closes, so the reveal is never served late.
      return {
        value: { board, body: preserialized(body), load: ++boardLoads },
        ...(board.hidden ? { expiresAtMs: board.contest.bettingClosesMs } : {}),
      };
    });
    const me = callerOf(ctx);
    if (!me) return { status: 200, body: page.body, headers: NO_STORE };
    // Keyed by the page object's load: rows are ranked against that page's score counts and top slice.
    const caller = await callers.read(`board|${me}|${id}|${limit}|${page.load}`, id, async () => ({
      value: { rows: (await callerRowsOf(ctx.db, page.board, me)).map(leaderboardRowWire) },
    }));
    const body = callerCopy(page.body, caller, (): LeaderboardResponse => ({ ...page.body, caller }));
    return { status: 200, body, headers: NO_STORE };
  };
};

const getContestTopParticipantsOp =
  (pages: PageCache): Handler<'getContestTopParticipants'> =>
  async ({ params, query }, ctx) => {
    const id = idOf(params.id);
    const windowMs = query.window_ms ?? DEFAULT_TOP_WINDOW_MS;
    const limit = clampLimit(query.limit, 5, 25);
    // Spans the contests of a category: dropped by any contest's change; expires when the window's edge
    // moves past a resolution time (validUntilMs).
    const body = await pages.read(`top|${id}|${windowMs}|${limit}`, CROSS_CONTEST, async (nowMs) => {
      const r = await topParticipantsAt(ctx.db, id, windowMs, limit, nowMs);
      const wire: TopParticipantsResponse = {
        window_ms: windowMs,
        participants: r.participants.map((p) => ({
          user_id: p.userId,
          handle: p.handle,
          x_handle: p.xHandle,
          x_avatar_url: p.xAvatarUrl,
          avatar_seed: p.avatarSeed,
          won_count: p.wonCount,
          total_winnings_micros: Number(p.totalWinnings),
        })),
      };
      return { value: preserialized(wire), expiresAtMs: r.validUntilMs ?? undefined };
    });
    return { status: 200, body, headers: NO_STORE };
  };

const getContestPopularEntryOp =
  (pages: PageCache): Handler<'getContestPopularEntry'> =>
  async ({ params }, ctx) => {
    const id = idOf(params.id);
    // While picks are hidden the page expires when betting closes, so the reveal is never served late.
    const body = await pages.read(`popular|${id}`, id, async (nowMs) => {
      const p = await popularEntry(ctx.db, id, nowMs);
      const wire: PopularEntryResponse = {
        total_entries: p.totalEntries,
        entry_visibility: p.visible ? 'visible' : 'hidden_while_betting_open',
        markets: p.markets.map((m) => ({ market_id: m.marketId, yes_count: m.yesCount, no_count: m.noCount })),
      };
      return { value: preserialized(wire), expiresAtMs: p.hiddenUntilMs };
    });
    return { status: 200, body, headers: NO_STORE };
  };
