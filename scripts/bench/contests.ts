// `npm run bench:contests [-- --n 400 --warmup 30 --contests 100000 --entries 100000 --users 1000]`: contest
// read latency at size, measured side by side in one run against the real service (PostgreSQL + Redis):
//   - seeds (plain SQL, after the service migrated the database) `--users` users, `--contests` contests with
//     2 markets each spread over categories, statuses and a year of created_at_ms, and one resolved lineups
//     contest with `--entries` entries (10 picks each, scores 0..10 binomial), its score counts rebuilt;
//   - times each case over HTTP (sequential requests, p50/p99) interleaved with the same SQL the handler runs,
//     replayed directly with `pg` on one connection; the "pg" side is captured by calling the domain functions
//     (leaderboard, listContests, topParticipants, resolveSessionToken) once with a recording shim, so it is
//     exactly the service's SQL text and parameters, in the same order, minus ORM + HTTP;
//   - prints EXPLAIN (ANALYZE, BUFFERS) of the leaderboard top query, the lobby first and a deep keyset page,
//     and the top-participants query, flagging any Seq Scan on contests / contest_entries.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Em } from '../../src/db/orm.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix } from '../../src/testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../../src/testing/service-process.js';
import { createTestPrivy } from '../../src/testing/identity.js';
import { newUserSession } from '../../src/testing/money.js';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { compileRepositoryQueries } from '../../src/db/repositories/snapshot.js';
import { leaderboard, topParticipants } from '../../src/domain/contests/board.js';
import { listContests, type LobbyQuery } from '../../src/domain/contests/lobby.js';
import { resolveSessionToken } from '../../src/domain/identity/sessions.js';
import { percentile } from './harness.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '400' },
    warmup: { type: 'string', default: '30' },
    contests: { type: 'string', default: '100000' },
    entries: { type: 'string', default: '100000' },
    users: { type: 'string', default: '1000' },
    'deep-pages': { type: 'string', default: '50' },
    'case-seconds': { type: 'string', default: '25' },
  },
});
const N = Number(values.n);
const WARMUP = Number(values.warmup);
const CONTESTS = Number(values.contests);
const USERS = Number(values.users);
const PER_USER = Math.ceil(Number(values.entries) / USERS);
const ENTRIES = PER_USER * USERS;
const DEEP_PAGES = Number(values['deep-pages']);
/** A case stops early (after at least MIN_SAMPLES) once its timed part has run this long; the table shows n. */
const CASE_SECONDS = Number(values['case-seconds']);
const MIN_SAMPLES = 100;
const OPERATOR_TOKEN = 'bench-operator-token-0123456789';
const DAY = 86_400_000;
const BIG_MARKETS = 10; // picks per entry in the big contest: scores 0..10
const CALLER_MASKS = [0, 1, 3]; // the signed-in caller's entries: scores 0, 1, 2 (far outside the top)

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** MikroORM `?` placeholders to pg `$n` (the service's SQL here has no `?` inside literals). */
const toPg = (sql: string) => {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
};

interface Captured {
  text: string;
  values: unknown[];
}

/**
 * An Em stand-in that runs every statement directly on `client` and records its SQL + parameters: raw SQL
 * (execute(), identity) and the repositories' Kysely queries (getKysely(), the same compiled text as the
 * snapshots in src/queries/).
 */
function recordingEm(client: pg.ClientBase): { em: Em; queries: Captured[] } {
  const queries: Captured[] = [];
  const onClient = { query: (text: string, params: unknown[]) => client.query(text, params), release() {} };
  const pool = { connect: async () => onClient, end: async () => undefined } as unknown as PostgresPool;
  const kysely = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      queries.push({ text: e.query.sql, values: [...e.query.parameters] });
    },
  });
  const em = {
    async execute(sql: string, params: unknown[] = []) {
      const q = { text: toPg(sql), values: params };
      queries.push(q);
      return (await client.query(q)).rows;
    },
    getKysely: () => kysely,
  };
  return { em: em as unknown as Em, queries };
}

async function capture(client: pg.ClientBase, fn: (em: Em) => Promise<unknown>): Promise<Captured[]> {
  const r = recordingEm(client);
  await fn(r.em);
  return r.queries;
}

let svc: ServiceProcess | undefined;
let client: pg.Client | undefined;
const db = await createTestDatabase('benchcontests');
let cleaned = false;
let stoppedByUs = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  await client?.end().catch(() => undefined);
  stoppedByUs = true;
  await svc?.stop().catch(() => undefined);
  await db.drop().catch((err: unknown) => log(`could not drop ${db.name}: ${String(err)}`));
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  const privy = await createTestPrivy();
  svc = await startServiceProcess({
    env: {
      NODE_ENV: 'test',
      // info, as bench:deposits and bench:mm: the helper reads the port from the "listening" line, which
      // LOG_LEVEL=warn would hide. The service then logs one line per request, as it does in production.
      LOG_LEVEL: 'info',
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniquePrefix('benchcontests'),
      OPERATOR_TOKEN,
      RATE_LIMIT_PER_MINUTE: '0',
      ...privy.env,
    },
  });
  const base = svc.baseUrl;
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const sql = client;

  // The signed-in caller: a real session through the Privy exchange; their entries are seeded below.
  const caller = await newUserSession(base, privy);

  // ---------------------------------------------------------------------------------------------- seed
  const now = Date.now();
  const bigId = randomUUID();
  const openNewest = Math.min(3000, CONTESTS); // the newest ~10 days are open, older ones resolved (5% voided)
  const seedStart = performance.now();
  const step = async (label: string, text: string, params: unknown[] = []) => {
    const t = performance.now();
    const r = await sql.query(text, params);
    log(`  seed: ${label.padEnd(44)} ${String(r.rowCount ?? '').padStart(8)} rows  ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  log(`seeding ${USERS} users, ${CONTESTS} contests, 1 contest with ${ENTRIES} entries x ${BIG_MARKETS} picks ...`);
  await sql.query('set synchronous_commit = off');
  await step(
    'users',
    `insert into users (id, wallet_address, handle, x_handle, x_avatar_url)
     select gen_random_uuid(), '0x' || lpad(to_hex(n), 40, '0'),
            case when n % 4 <> 0 then 'bench_' || n end,
            case when n % 5 = 0 then 'xbench' || n end,
            case when n % 5 = 0 then 'https://pbs.twimg.com/profile_images/' || n || '/avatar_normal.jpg' end
       from generate_series(1, $1::int) n`,
    [USERS],
  );
  await step(
    'seed_contests (temp)',
    `create temp table seed_contests as
     select n, gen_random_uuid() as id,
            (array['mentions', 'sports', 'culture'])[1 + n % 3] as category,
            (array['lineups', 'outcast', 'survivor', 'streak'])[1 + (n / 3) % 4] as game_type,
            case when n % 20 = 0 then 'voided' when n <= $2::int then 'open' else 'resolved' end as status,
            $1::bigint - n::bigint * 300000 - floor(random() * 300000)::bigint as created_at_ms
       from generate_series(1, $3::int) n`,
    [now, openNewest, CONTESTS],
  );
  await step(
    'contests',
    `insert into contests (id, title, category, game_type, description, status, bet_amount, protocol_prize_pool, entry_cap,
       max_entries_per_user, entries_filled, open_market_count, entry_opens_at_ms, betting_closes_ms, live_ends_at_ms, bet_type_kind,
       bet_type_value, winning_split_bps, image_id, entry_visibility, created_at_ms, resolved_at_ms, voided_at_ms)
     select id, 'Bench contest #' || n, category, game_type, case when n % 2 = 0 then 'Seeded by bench:contests' end, status,
            5000000, case when n % 4 = 0 then 10000000 else 0 end, 100, 1, 0,
            case when status = 'open' then 2 else 0 end,
            null,
            case when status = 'open' then $1::bigint + $2::bigint else created_at_ms + $2::bigint end,
            case when status = 'open' then $1::bigint + 2 * $2::bigint else created_at_ms + 2 * $2::bigint end,
            'num_bets', 2, '{6000,3000,1000}', null, 'visible', created_at_ms,
            case when status = 'resolved' then least(created_at_ms + 4 * $2::bigint, $1::bigint - 1000) end,
            case when status = 'voided' then least(created_at_ms + $2::bigint, $1::bigint - 1000) end
       from seed_contests`,
    [now, DAY],
  );
  await step(
    'markets + contest_markets (2 per contest)',
    `with m as (insert into markets (kind) select 'contest' from generate_series(1, $1::int * 2) returning market_id),
          r as (select market_id, (row_number() over (order by market_id) - 1)::int as k from m)
     insert into contest_markets (market_id, contest_id, position, category, name, status, outcome, betting_closes_at_ms,
       live_ends_at_ms, resolution_time_ms, resolved_at_ms)
     select r.market_id, c.id, r.k % 2, c.category, 'Bench market ' || (r.k % 2 + 1) || ' of contest #' || c.n,
            case c.status when 'open' then 'OPEN' when 'resolved' then 'RESOLVED' else 'VOIDED' end,
            case when c.status = 'resolved' then (case when (r.k + c.n) % 3 = 0 then 'NO' else 'YES' end) end,
            c.created_at_ms + $2::bigint, c.created_at_ms + 2 * $2::bigint, c.created_at_ms + 2 * $2::bigint,
            case when c.status <> 'open' then least(c.created_at_ms + $2::bigint, $3::bigint - 2000) end
       from r join seed_contests c on c.n = r.k / 2 + 1`,
    [CONTESTS, DAY, now],
  );
  await step(
    'big contest',
    `insert into contests (id, title, category, game_type, description, status, bet_amount, protocol_prize_pool, entry_cap,
       max_entries_per_user, entries_filled, open_market_count, entry_opens_at_ms, betting_closes_ms, live_ends_at_ms, bet_type_kind,
       bet_type_value, winning_split_bps, image_id, entry_visibility, created_at_ms, resolved_at_ms)
     values ($1, 'Bench: the big one', 'sports', 'lineups', 'One contest with every entry', 'resolved', 5000000, 100000000,
       $2::int, $3::int, 0, 0, null, $4::bigint - 2 * $5::bigint, $4::bigint - $5::bigint / 12, 'num_bets', $6::int,
       '{5000,2500,1000,500,500,500}', null, 'visible', $4::bigint - 3 * $5::bigint, $4::bigint - 3600000)`,
    [bigId, ENTRIES + 1000, PER_USER, now, DAY, BIG_MARKETS],
  );
  await step(
    `big contest markets (${BIG_MARKETS}, resolved)`,
    `with m as (insert into markets (kind) select 'contest' from generate_series(1, $2::int) returning market_id),
          r as (select market_id, (row_number() over (order by market_id) - 1)::int as k from m)
     insert into contest_markets (market_id, contest_id, position, category, name, status, outcome, resolved_at_ms)
     select market_id, $1, k, 'sports', 'Big contest market ' || (k + 1), 'RESOLVED', case when k % 2 = 0 then 'YES' else 'NO' end,
            $3::bigint - 7200000
       from r`,
    [bigId, BIG_MARKETS, now],
  );
  // mask bit k = 1: the entry won market k (its pick matches the outcome); score = popcount(mask).
  await step(
    'seed_entries (temp)',
    `create temp table seed_entries as
     select gen_random_uuid() as id, u.id as user_id, k as entry_index, floor(random() * 1024)::int as mask,
            $1::bigint + floor(random() * $2::bigint)::bigint as created_at_ms
       from users u cross join generate_series(0, $3::int - 1) k
      where u.id <> $4::uuid`,
    [now - 3 * DAY, 2 * DAY, PER_USER, caller.userId],
  );
  await step(
    'caller entries (temp)',
    `insert into seed_entries (id, user_id, entry_index, mask, created_at_ms)
     select gen_random_uuid(), $1::uuid, i - 1, m, $2::bigint + i from unnest($3::int[]) with ordinality as t(m, i)`,
    [caller.userId, now - 2 * DAY, CALLER_MASKS],
  );
  await step(
    'contest_entries (ranked, paid)',
    `insert into contest_entries (id, contest_id, user_id, entry_index, created_at_ms, pick_count, resolved_win_count,
       resolved_leg_count, score, payout, rank)
     select id, $1, user_id, entry_index, created_at_ms, $2::int, s, $2::int, s,
            case when s = $2::int then 40000000 when s = $2::int - 1 then 2000000 else 0 end,
            rank() over (order by s desc)
       from (select *, length(replace(mask::bit(10)::text, '0', ''))::int as s from seed_entries) e`,
    [bigId, BIG_MARKETS],
  );
  await step(
    'contest_entry_picks',
    `insert into contest_entry_picks (entry_id, market_id, direction)
     select e.id, m.market_id, case when ((e.mask >> m.position) & 1 = 1) = (m.outcome = 'YES') then 'up' else 'down' end
       from seed_entries e cross join contest_markets m where m.contest_id = $1`,
    [bigId],
  );
  await step(
    'contest_markets up/down counts',
    `update contest_markets cm set up_count = p.up, down_count = p.down
       from (select p.market_id, count(*) filter (where direction = 'up')::int as up, count(*) filter (where direction = 'down')::int as down
               from contest_entry_picks p join contest_markets m on m.market_id = p.market_id and m.contest_id = $1 group by p.market_id) p
      where cm.market_id = p.market_id`,
    [bigId],
  );
  await step(
    'contest_score_counts',
    `insert into contest_score_counts (contest_id, score, entries)
     select contest_id, score, count(*)::int from contest_entries where contest_id = $1 group by contest_id, score`,
    [bigId],
  );
  await step('entries_filled', 'update contests set entries_filled = (select count(*) from contest_entries where contest_id = $1) where id = $1', [
    bigId,
  ]);
  await sql.query('drop table seed_contests; drop table seed_entries');
  await step('vacuum analyze', 'vacuum (analyze)');
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const counts = (
    await sql.query(
      `select (select count(*) from users)::int as users, (select count(*) from contests)::int as contests,
       (select count(*) from contest_markets)::int as contest_markets, (select count(*) from contest_entries)::int as contest_entries,
       (select count(*) from contest_entry_picks)::int as picks,
       (select string_agg(score || ':' || entries, ' ' order by score desc) from contest_score_counts where contest_id = $1) as histogram,
       (select count(*) from contests where status = 'open' and category = 'sports')::int as open_sports`,
      [bigId],
    )
  ).rows[0];
  log(`seeded in ${seedSeconds.toFixed(1)} s: ${JSON.stringify(counts)}`);

  // ------------------------------------------------------------------------------------- the cases
  const get = async (path: string, token?: string) => {
    const res = await fetch(`${base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return text;
  };

  // Lobby: follow next_cursor DEEP_PAGES pages in over HTTP; the next page's cursor is the deep case.
  let cursor: string | null = null;
  for (let i = 0; i < DEEP_PAGES; i++) {
    const body = JSON.parse(await get(`/v1/contests?limit=20${cursor ? `&cursor=${cursor}` : ''}`)) as { next_cursor: string | null };
    cursor = body.next_cursor;
    if (!cursor) throw new Error(`the lobby ran out of pages after ${i + 1}`);
  }
  const deepCursor = cursor!;

  const lobbyQ = (q: Omit<LobbyQuery, 'limit'>): LobbyQuery => ({ limit: 20, ...q });
  const weekMs = 604_800_000;
  interface Case {
    name: string;
    path: string;
    token?: string;
    queries: Captured[];
    /** Wire rows (HTTP) and pg rows must name the same things in the same order. */
    check: (httpBody: any, pgRows: any[][]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const boardCheck = (limit: number) => (b: any, rows: any[][]) => {
    const top = rows[2]!; // loadContest, loadScoreCounts, leaderboardTop[, caller rows]
    if (top.length !== limit) throw new Error(`leaderboard: pg top has ${top.length} rows`);
    const wire = b.entries.map((e: any) => `${e.user_id}/${e.entry_index}`).join(','); // eslint-disable-line @typescript-eslint/no-explicit-any
    const direct = top.map((r: any) => `${r.user_id}/${r.entry_index}`).join(','); // eslint-disable-line @typescript-eslint/no-explicit-any
    if (wire !== direct) throw new Error('leaderboard: HTTP and pg disagree on the top rows');
    if (b.total_entries !== ENTRIES + CALLER_MASKS.length) throw new Error(`leaderboard: total_entries ${b.total_entries}`);
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
    ...(await capture(sql, (em) => resolveSessionToken(em, caller.token))),
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
        if (!b.caller || b.caller.rows.length !== CALLER_MASKS.length) throw new Error(`leaderboard: caller.rows ${JSON.stringify(b.caller)}`);
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
        const direct = rows[rows.length - 1]!.map((r: any) => r.user_id).join(','); // eslint-disable-line @typescript-eslint/no-explicit-any
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

  const runPg = async (qs: Captured[]) => {
    const out: any[][] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const q of qs) out.push((await sql.query(q)).rows);
    return out;
  };

  // Sanity: HTTP and the replayed SQL answer the same rows.
  for (const c of cases) c.check(JSON.parse(await get(c.path, c.token)), await runPg(c.queries));

  // Timed: each case's HTTP request and its SQL replay interleaved (alternating which goes first).
  log(`timing ${cases.length} cases x (${WARMUP} warm-up + ${N}) requests, HTTP and pg interleaved ...`);
  const results: Array<{ name: string; queries: number; http: number[]; pg: number[]; seconds: number }> = [];
  const timingStart = performance.now();
  for (const c of cases) {
    const http: number[] = [];
    const direct: number[] = [];
    let timedFrom = 0;
    for (let i = 0; i < WARMUP + N; i++) {
      if (i === WARMUP) timedFrom = performance.now();
      if (i > WARMUP + MIN_SAMPLES && performance.now() - timedFrom > CASE_SECONDS * 1000) break;
      const order = i % 2 === 0 ? (['http', 'pg'] as const) : (['pg', 'http'] as const);
      for (const side of order) {
        const t = performance.now();
        if (side === 'http') await get(c.path, c.token);
        else await runPg(c.queries);
        const ms = performance.now() - t;
        if (i >= WARMUP) (side === 'http' ? http : direct).push(ms);
      }
    }
    http.sort((a, b) => a - b);
    direct.sort((a, b) => a - b);
    results.push({ name: c.name, queries: c.queries.length, http, pg: direct, seconds: (performance.now() - timedFrom) / 1000 });
  }
  const timingSeconds = (performance.now() - timingStart) / 1000;

  // ------------------------------------------------------------------------------------------ report
  const f = (n: number) => n.toFixed(2).padStart(8);
  const lines = [
    `contests bench: ${counts.contests} contests (${counts.contest_markets} contest markets), ${counts.contest_entries} entries in one contest (${counts.picks} picks), ${counts.users} users; seeded in ${seedSeconds.toFixed(1)} s; up to ${N} timed requests per side per case after ${WARMUP} warm-up, sequential, HTTP and pg interleaved (${timingSeconds.toFixed(1)} s)`,
    `score histogram of the big contest (score:entries): ${counts.histogram}; open sports contests: ${counts.open_sports}`,
    `n = timed requests per side (fewer than ${N} when a case hit its ${CASE_SECONDS} s budget); pg = the handler's own SQL (captured from the domain functions) replayed on one pg connection; "q" = statements per request`,
    '',
    `${'case'.padEnd(38)} ${'q'.padStart(2)} ${'n'.padStart(4)} ${'HTTP p50'.padStart(8)} ${'HTTP p99'.padStart(8)} ${'pg p50'.padStart(8)} ${'pg p99'.padStart(8)} ${'x p50'.padStart(7)} ${'x p99'.padStart(7)}`,
    `${'-'.repeat(38)} -- ---- -------- -------- -------- -------- ------- -------`,
    ...results.map((r) => {
      const h50 = percentile(r.http, 50);
      const h99 = percentile(r.http, 99);
      const p50 = percentile(r.pg, 50);
      const p99 = percentile(r.pg, 99);
      return `${r.name.padEnd(38)} ${String(r.queries).padStart(2)} ${String(r.http.length).padStart(4)} ${f(h50)} ${f(h99)} ${f(p50)} ${f(p99)} ${(h50 / p50).toFixed(1).padStart(6)}x ${(h99 / p99).toFixed(1).padStart(6)}x`;
    }),
    '(milliseconds; x = HTTP / pg)',
  ];
  console.log(lines.join('\n'));

  // Plans.
  const explain = async (title: string, q: Captured) => {
    const plan = (await sql.query({ text: `explain (analyze, buffers) ${q.text}`, values: q.values })).rows.map((r) => r['QUERY PLAN'] as string);
    console.log(`\n=== EXPLAIN (ANALYZE, BUFFERS): ${title}\n-- ${q.text.replace(/\s+/g, ' ').trim()}\n-- params: ${JSON.stringify(q.values)}`);
    console.log(plan.join('\n'));
    const seq = plan.filter((l) => /Seq Scan on (contests|contest_entries)\b/.test(l));
    if (seq.length) console.log(`\n!!!!!!!! SEQ SCAN on ${seq.map((l) => l.trim()).join(' | ')} !!!!!!!!`);
    return seq.length;
  };
  const find = (c: Case, pred: (q: Captured) => boolean) => {
    const q = c.queries.find(pred);
    if (!q) throw new Error(`no matching query captured for ${c.name}`);
    return q;
  };
  let seqScans = 0;
  seqScans += await explain(
    'leaderboard top (limit=10)',
    find(cases[0]!, (q) => q.text === LEADERBOARD_TOP_SQL),
  );
  seqScans += await explain(
    'leaderboard top (limit=100)',
    find(cases[1]!, (q) => q.text === LEADERBOARD_TOP_SQL),
  );
  seqScans += await explain('leaderboard caller rows', cases[2]!.queries[cases[2]!.queries.length - 1]!);
  seqScans += await explain(
    'lobby first page',
    find(cases[3]!, (q) => q.text.includes('from "contests"')),
  );
  seqScans += await explain(
    `lobby page ${DEEP_PAGES + 1} (keyset)`,
    find(cases[4]!, (q) => q.text.includes('from "contests"')),
  );
  seqScans += await explain(
    'lobby status=open&category=sports',
    find(cases[5]!, (q) => q.text.includes('from "contests"')),
  );
  seqScans += await explain(
    'top participants (7 days)',
    find(cases[6]!, (q) => q.text === TOP_PARTICIPANTS_SQL),
  );
  console.log(
    seqScans
      ? `\n!!!!!!!! ${seqScans} SEQ SCAN(S) on contests/contest_entries in the plans above !!!!!!!!`
      : '\nno Seq Scan on contests or contest_entries in any plan above',
  );
} catch (err) {
  if (svc && !stoppedByUs && svc.logs.some((l) => l.msg === 'shutting down')) {
    log(
      `!! the service was stopped by a signal this bench did not send (${JSON.stringify(svc.logs.find((l) => l.msg === 'shutting down'))}): another process on this machine; rerun`,
    );
  }
  if (svc)
    log(
      `service exit code ${String(svc.proc.exitCode)} signal ${String(svc.proc.signalCode)}; its last output:\n${svc.rawOutput
        .filter((l) => !l.includes('"msg":"request"'))
        .slice(-20)
        .join('\n')}`,
    );
  process.exitCode = 1;
  throw err;
} finally {
  await cleanup();
}
