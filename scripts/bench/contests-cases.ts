// bench:contests: the cases, each an HTTP path, the SQL its handler runs (captured from the domain functions)
// and a check that both answer the same rows.
import pg from 'pg';
import { compileRepositoryQueries } from '../../src/db/repositories/snapshot.js';
import { leaderboard, topParticipants } from '../../src/domain/contests/board.js';
import { listContests, type LobbyQuery } from '../../src/domain/contests/lobby.js';
import { hashToken, liveSessionByHash } from '../../src/domain/identity/sessions.js';
import { capture, type Captured } from './contests-capture.js';

export interface Case {
  name: string;
  path: string;
  token?: string;
  queries: Captured[];
  /** Wire rows (HTTP) and pg rows must name the same things in the same order. */
  check: (httpBody: any, pgRows: any[][]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface CaseContext {
  bigId: string;
  caller: { userId: string; token: string };
  /** The lobby cursor `deepPages` pages in. */
  deepCursor: string;
  deepPages: number;
  /** Entries in the big contest, the caller's included. */
  totalEntries: number;
  callerMasks: readonly number[];
}

/** The cases, and the snapshotted statements (src/queries/contest-boards.sql) to find among their queries. */
export async function buildCases(sql: pg.ClientBase, ctx: CaseContext) {
  const { bigId, caller, deepCursor, deepPages: DEEP_PAGES, callerMasks: CALLER_MASKS } = ctx;
  const lobbyQ = (q: Omit<LobbyQuery, 'limit'>): LobbyQuery => ({ limit: 20, ...q });
  const weekMs = 604_800_000;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const boardCheck = (limit: number) => (b: any, rows: any[][]) => {
    const top = rows[2]!; // loadContest, loadScoreCounts, leaderboardTop[, caller rows]
    if (top.length !== limit) throw new Error(`leaderboard: pg top has ${top.length} rows`);
    const wire = b.entries.map((e: any) => `${e.user_id}/${e.entry_index}`).join(','); // eslint-disable-line @typescript-eslint/no-explicit-any
    const direct = top.map((r: any) => `${r.user_id}/${r.entry_index}`).join(','); // eslint-disable-line @typescript-eslint/no-explicit-any
    if (wire !== direct) throw new Error('leaderboard: HTTP and pg disagree on the top rows');
    if (b.total_entries !== ctx.totalEntries) throw new Error(`leaderboard: total_entries ${b.total_entries}`);
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const lobbyCheck = (b: any, rows: any[][]) => {
    const wire = b.contests.map((c: any) => c.contest_id).join(','); // eslint-disable-line @typescript-eslint/no-explicit-any
    const direct = rows[rows.length - 1]!.slice(0, 20)
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      .map((r: any) => r.id)
      .join(',');
    if (wire !== direct) throw new Error('lobby: HTTP and pg disagree on the page');
  };
  const callerQueries = [
    ...(await capture(sql, (em) => liveSessionByHash(em, hashToken(caller.token)))),
    ...(await capture(sql, (em) => leaderboard(em, bigId, 10, caller.userId))),
  ];
  const cases: Case[] = [
    {
      name: 'leaderboard limit=10 (anonymous)',
      path: `/v1/contests/${bigId}/leaderboard?limit=10`,
      queries: await capture(sql, (em) => leaderboard(em, bigId, 10, null)),
      check: boardCheck(10),
    },
    {
      name: 'leaderboard limit=100 (anonymous)',
      path: `/v1/contests/${bigId}/leaderboard?limit=100`,
      queries: await capture(sql, (em) => leaderboard(em, bigId, 100, null)),
      check: boardCheck(100),
    },
    {
      name: 'leaderboard limit=10 + caller.rows',
      path: `/v1/contests/${bigId}/leaderboard?limit=10`,
      token: caller.token,
      queries: callerQueries,
      check: (b, rows) => {
        boardCheck(10)(b, rows.slice(1));
        if (!b.caller || b.caller.rows.length !== CALLER_MASKS.length)
          throw new Error(`leaderboard: caller.rows ${JSON.stringify(b.caller)}`);
        if (rows[rows.length - 1]!.length !== CALLER_MASKS.length) throw new Error('leaderboard: pg caller rows');
      },
    },
    {
      name: 'lobby first page (limit=20)',
      path: '/v1/contests?limit=20',
      queries: await capture(sql, (em) => listContests(em, lobbyQ({}))),
      check: lobbyCheck,
    },
    {
      name: `lobby page ${DEEP_PAGES + 1} (keyset cursor)`,
      path: `/v1/contests?limit=20&cursor=${deepCursor}`,
      queries: await capture(sql, (em) => listContests(em, lobbyQ({ cursor: deepCursor }))),
      check: lobbyCheck,
    },
    {
      name: 'lobby status=open&category=sports',
      path: '/v1/contests?limit=20&status=open&category=sports',
      queries: await capture(sql, (em) => listContests(em, lobbyQ({ status: 'open', category: 'sports' }))),
      check: lobbyCheck,
    },
    {
      name: 'top participants (7 days, limit=5)',
      path: `/v1/contests/${bigId}/top-participants?window_ms=${weekMs}&limit=5`,
      queries: await capture(sql, (em) => topParticipants(em, bigId, weekMs, 5)),
      check: (b, rows) => {
        // The participants are the statement whose rows carry user_id (a load also reads the window's next boundary).
        const list = rows.find((r: any[]) => r.length > 0 && 'user_id' in r[0]) ?? []; // eslint-disable-line @typescript-eslint/no-explicit-any
        const direct = list.map((r: any) => r.user_id).join(','); // eslint-disable-line @typescript-eslint/no-explicit-any
        const wire = b.participants.map((p: any) => p.user_id).join(','); // eslint-disable-line @typescript-eslint/no-explicit-any
        if (!b.participants.length || wire !== direct) throw new Error('top participants: HTTP and pg disagree');
      },
    },
  ];
  // The statements to replay and explain are the snapshotted ones (src/queries/contest-boards.sql).
  const snapshot = (await compileRepositoryQueries())['contest-boards']!;
  const snapped = (name: string) => snapshot.find((q) => q.name === `ContestBoardsRepository.${name}`)!.sql;
  const LEADERBOARD_TOP_SQL = snapped('leaderboardTop');
  const TOP_PARTICIPANTS_SQL = snapped('topParticipants');
  if (!cases[0]!.queries.some((q) => q.text === LEADERBOARD_TOP_SQL))
    throw new Error('the captured leaderboard queries do not contain the snapshotted leaderboardTop');
  if (!cases[6]!.queries.some((q) => q.text === TOP_PARTICIPANTS_SQL))
    throw new Error('the captured top-participants queries do not contain the snapshotted topParticipants');
  return { cases, leaderboardTopSql: LEADERBOARD_TOP_SQL, topParticipantsSql: TOP_PARTICIPANTS_SQL };
}
