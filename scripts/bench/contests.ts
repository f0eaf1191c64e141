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
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix } from '../../src/testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../../src/testing/service-process.js';
import { createTestPrivy } from '../../src/testing/identity.js';
import { newUserSession } from '../../src/testing/money.js';
import { replay, type Captured } from './contests-capture.js';
import { buildCases } from './contests-cases.js';
import { explainPlans, formatTable, type CaseResult } from './contests-report.js';
import { seedContests } from './contests-seed.js';
import { passedThroughEnv } from './harness.js';

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
const BIG_MARKETS = 10; // picks per entry in the big contest: scores 0..10
const CALLER_MASKS = [0, 1, 3]; // the signed-in caller's entries: scores 0, 1, 2 (far outside the top)

const log = (msg: string) => process.stderr.write(`${msg}\n`);

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
      ...passedThroughEnv(),
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
  const bigId = randomUUID();
  const { seedSeconds, counts } = await seedContests(
    sql,
    {
      now: Date.now(),
      bigId,
      users: USERS,
      contests: CONTESTS,
      perUser: PER_USER,
      bigMarkets: BIG_MARKETS,
      callerUserId: caller.userId,
      callerMasks: CALLER_MASKS,
    },
    log,
  );

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

  const { cases, leaderboardTopSql, topParticipantsSql } = await buildCases(sql, {
    bigId,
    caller,
    deepCursor,
    deepPages: DEEP_PAGES,
    totalEntries: ENTRIES + CALLER_MASKS.length,
    callerMasks: CALLER_MASKS,
  });
  const runPg = (qs: Captured[]) => replay(sql, qs);

  // Sanity: HTTP and the replayed SQL answer the same rows.
  for (const c of cases) c.check(JSON.parse(await get(c.path, c.token)), await runPg(c.queries));

  // Timed: each case's HTTP request and its SQL replay interleaved (alternating which goes first).
  log(`timing ${cases.length} cases x (${WARMUP} warm-up + ${N}) requests, HTTP and pg interleaved ...`);
  const results: CaseResult[] = [];
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
  console.log(formatTable(results, { counts, seedSeconds, timingSeconds, n: N, warmup: WARMUP, caseSeconds: CASE_SECONDS }));
  const seqScans = await explainPlans(sql, cases, { leaderboardTopSql, topParticipantsSql, deepPages: DEEP_PAGES });
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
