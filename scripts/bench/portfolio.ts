// `npm run bench:portfolio [-- --n 2000 --list-n 500 --sizes 100,10000,100000]`: the portfolio read at size,
// over HTTP against the real service (child process, PostgreSQL + Redis, LOG_LEVEL=info, through the bench
// harness) next to the domain call and plain pg, in one run. Three takers sign in through the service
// (Privy exchange), then hold 100, 10,000 and 100,000 open positions (seeded by plain SQL, settle-seed.ts, with
// trading_stats consistent: checkLedger is empty). Per case and taker, interleaved request by request:
//   GET /v1/portfolio (HTTP)    the route: session, handler, one trading_stats row, JSON;
//   getPortfolio (domain)       its domain call in this process;
//   pg: trading_stats row       the same row with plain pg (the floor);
//   pg: sum over positions      what the summary would cost without the counters (count/sum over the taker's
//                               positions), for scale;
//   GET /v1/positions?limit=50  the first list page over HTTP (newest first, legs joined);
//   listPositions page 1 (50)   its domain call;
//   pg: page 1 + its legs       the same two statements with plain pg;
// and prints EXPLAIN (ANALYZE) of the first-page query for the largest taker. Both reads should be flat in
// the number of positions.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createOrm } from '../../src/db/orm.js';
import { checkLedger } from '../../src/domain/ledger/ledger.js';
import { getPortfolio, listPositions } from '../../src/domain/positions/portfolio.js';
import { call, createTestPrivy } from '../../src/testing/identity.js';
import { newUserSession } from '../../src/testing/money.js';
import { percentile, row, startBenchService } from './harness.js';
import { seedSettlement } from './settle-seed.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '2000' },
    'list-n': { type: 'string', default: '500' },
    sizes: { type: 'string', default: '100,10000,100000' },
    warmup: { type: 'string', default: '100' },
  },
});
const N = Number(values.n);
const LIST_N = Number(values['list-n']);
const WARMUP = Number(values.warmup);
const SIZES = values.sizes.split(',').map(Number);
const log = (msg: string) => process.stderr.write(`${msg}\n`);
// listPositions' two statements (PositionsRepository.page and legsOf), for the plain-pg floor.
const PAGE = `select id, rfq_id, taker_user_id, taker_address, stake, payout, odds_bps, status, pnl, created_at_ms, resolved_at_ms
  from positions where taker_user_id = $1 order by created_at_ms desc, id desc limit 51`;
const LEGS = `select l.position_id, l.leg_index, l.market_id, l.direction, l.outcome, m.asset, m.duration_secs, m.start_at_ms
  from position_legs l join markets m on m.market_id = l.market_id where l.position_id = any($1::uuid[]) order by l.position_id, l.leg_index`;

const privy = await createTestPrivy();
const bench = await startBenchService('benchportfolio', { NODE_ENV: 'test', ...privy.env });
const base = bench.svc.baseUrl;
const orm = await createOrm({ databaseUrl: bench.db.url });
const client = new pg.Client({ connectionString: bench.db.url });
client.on('error', () => undefined);
try {
  await client.connect();
  const sessions = await Promise.all(SIZES.map(() => newUserSession(base, privy)));
  const tokens = new Map(sessions.map((x) => [x.userId, x.token]));
  const total = SIZES.reduce((a, b) => a + b, 0);
  log(`seeding ${total} open positions for ${SIZES.length} signed-in takers (${SIZES.join(', ')}) ...`);
  const seed = await seedSettlement(
    client,
    {
      positions: total,
      windows: 1,
      makers: 10,
      takers: SIZES.length,
      takerWeights: SIZES,
      takerIds: sessions.map((x) => x.userId),
      // Not ended: the service's resolve-window relay would settle an ended window while the bench reads.
      windowsAt: 'future',
      now: Date.now(),
    },
    log,
  );
  const problems = await checkLedger(orm.em.fork());
  if (problems.length) throw new Error(`the seed's ledger is not clean: ${JSON.stringify(problems.slice(0, 3))}`);
  const counts = (await client.query<{ n: number }>('select count(*)::int as n from positions group by taker_user_id order by 1')).rows.map(
    (r) => r.n,
  );
  log(`seeded in ${seed.seconds.toFixed(1)} s; positions per taker: ${counts.join(', ')}; checkLedger clean`);
  const http = async (route: string, u: string, expect: (body: Record<string, unknown>) => boolean) => {
    const r = await call(base, route, { token: tokens.get(u)! });
    if (r.status !== 200 || !expect(r.body)) throw new Error(`${route} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
  };
  // The HTTP answers are checked against the seed, so a case that silently measured an error cannot pass.
  const openOf = new Map(seed.takerIds.map((u, k) => [u, SIZES[k]!]));

  type Case = { name: string; n: number; run: (userId: string) => Promise<unknown> };
  const cases: Case[] = [
    {
      name: 'GET /v1/portfolio (HTTP)',
      n: N,
      run: (u) => http('GET /v1/portfolio', u, (b) => b.open_positions === openOf.get(u)),
    },
    { name: 'getPortfolio (domain)', n: N, run: (u) => getPortfolio(orm.em.fork(), u) },
    { name: 'pg: trading_stats row', n: N, run: (u) => client.query('select * from trading_stats where owner = $1', [`user:${u}`]) },
    {
      name: 'pg: sum over positions',
      n: Math.min(N, 200),
      run: (u) =>
        client.query(
          `select count(*) filter (where status = 'open'), sum(stake) filter (where status = 'open'), sum(payout) filter (where status = 'open'),
                  count(*) filter (where status <> 'open'), coalesce(sum(pnl), 0) from positions where taker_user_id = $1`,
          [u],
        ),
    },
    {
      name: 'GET /v1/positions?limit=50',
      n: LIST_N,
      run: (u) =>
        http('GET /v1/positions?limit=50', u, (b) => Array.isArray(b.positions) && b.positions.length === Math.min(50, openOf.get(u)!)),
    },
    { name: 'listPositions page 1 (50)', n: LIST_N, run: (u) => listPositions(orm.em.fork(), u, { limit: 50 }) },
    {
      name: 'pg: page 1 + its legs',
      n: LIST_N,
      run: async (u) => {
        const ids = (await client.query<{ id: string }>(PAGE, [u])).rows.slice(0, 50).map((r) => r.id);
        return client.query(LEGS, [ids]);
      },
    },
  ];
  const times = new Map<string, number[]>();
  for (const c of cases) {
    for (let i = 0; i < WARMUP; i++) for (const u of seed.takerIds) await c.run(u);
    // Interleaved: one call per taker in turn, so load on the box hits every size alike.
    for (let i = 0; i < c.n; i++) {
      for (const [k, u] of seed.takerIds.entries()) {
        const t = performance.now();
        await c.run(u);
        const ms = performance.now() - t;
        const key = `${c.name}|${SIZES[k]}`;
        (times.get(key) ?? times.set(key, []).get(key)!).push(ms);
      }
    }
  }
  const largest = seed.takerIds[SIZES.indexOf(Math.max(...SIZES))]!;
  const plan = (await client.query(`explain (analyze, buffers) ${PAGE}`, [largest])).rows.map(
    (r: { 'QUERY PLAN': string }) => `    ${r['QUERY PLAN']}`,
  );

  const W = [-28, 12, 10, 10, 8] as const;
  const lines = [
    `bench:portfolio: HTTP against the service (PostgreSQL + Redis, LOG_LEVEL=info) next to the domain calls and plain pg, sequential, p50/p99 in ms`,
    row([
      ['case', W[0]],
      ['positions', W[1]],
      ['p50 ms', W[2]],
      ['p99 ms', W[3]],
      ['n', W[4]],
    ]),
  ];
  for (const c of cases) {
    for (const size of SIZES) {
      const xs = [...times.get(`${c.name}|${size}`)!].sort((a, b) => a - b);
      lines.push(
        row([
          [c.name, W[0]],
          [size, W[1]],
          [percentile(xs, 50).toFixed(3), W[2]],
          [percentile(xs, 99).toFixed(3), W[3]],
          [xs.length, W[4]],
        ]),
      );
    }
  }
  lines.push(`EXPLAIN ANALYZE of listPositions' first page for the taker with ${Math.max(...SIZES)} positions:`, ...plan);
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await client.end().catch(() => undefined);
  await orm.close(true);
  await bench.stop();
}
