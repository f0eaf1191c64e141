// `npm run bench:settle [-- --positions 10000 --makers 10 --takers 200 --rounds 3 --warmup 1]`: positions
// settled per second when one window resolves (docs/performance.md, trading item 4), the service's path next to the same
// postings in plain SQL, measured side by side in one run on the same PostgreSQL:
//   - a template database (migrated, then seeded with plain SQL, settle-seed.ts) holds one ended window per
//     side, identical (N open single-leg positions each, half up, half down, same owners and amounts);
//   - every round copies the template (CREATE DATABASE ... TEMPLATE) and settles each side's window on that
//     fresh copy, the sides in a rotating order (no side always runs first or on warmer caches):
//       service         the resolve-window worker's path: insert the window_resolutions row (insertResolution),
//                       then settleWindow(...) with onBatch publishing each batch's position_settled frames on
//                       a Redis bus (publishRfqEvents), as the worker does;
//       service-pipelined the same with the proposed publishRfqEvents: a batch's frames sent at once and then
//                       awaited together (pipelined), instead of one awaited publish after the other;
//       service-nopub   the same without publishing (what settleWindow itself costs);
//       plain-sql       the same writes hand-written with pg (settle-sql.ts), one transaction per batch;
//   - after each side: checkLedger must be empty (including the trading counters), every position of the window
//     settled. `--warmup` rounds run first and are not reported (JIT, connection pools).
// Needs PostgreSQL and Redis like the tests. Reports positions/s per side (median over rounds), the ratio
// to plain SQL, and the p50 / p99 of one batch's time.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createRedisBus } from '../../src/bus/redis.js';
import { publishRfqEvents } from '../../src/trading/rfq-events.js';
import { int8 } from '../../src/db/int8.js';
import { createOrm, migrate, type Orm } from '../../src/db/orm.js';
import { repos } from '../../src/db/repos.js';
import { db } from '../../src/db/schema.js';
import { checkLedger } from '../../src/domain/ledger/ledger.js';
import type { ResolutionOutcome } from '../../src/db/vocabulary.js';
import { settleWindow, SETTLE_BATCH } from '../../src/domain/positions/settle.js';
import { ADMIN_URL, createTestDatabase, TEST_REDIS_URL, uniquePrefix, dropQueuePrefixes } from '../../src/testing/postgres.js';
import { percentile, row } from './harness.js';
import { seedSettlement, type SettleSeed } from './settle-seed.js';
import { profileRepositories } from './settle-profile.js';
import { settleWindowPlainSql } from './settle-sql.js';
import { busLine, commitLine } from './settle-probes.js';

const { values } = parseArgs({
  options: {
    positions: { type: 'string', default: '10000' },
    makers: { type: 'string', default: '10' },
    takers: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    outcome: { type: 'string', default: 'YES' },
    /** Seed, then stop and keep the template database (for EXPLAIN and profiling); prints its URL. */
    'seed-only': { type: 'boolean', default: false },
    /** Time each repository call of the service-nopub side (settle-profile.ts) and print where the time goes. */
    profile: { type: 'boolean', default: false },
  },
});
const N = Number(values.positions);
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const OUTCOME = values.outcome as ResolutionOutcome;
if (!['YES', 'NO', 'VOID'].includes(OUTCOME)) throw new Error('--outcome is YES, NO or VOID');

const SIDES = ['service', 'service-pipelined', 'service-nopub', 'plain-sql'] as const;
type Side = (typeof SIDES)[number];
interface Run {
  side: Side;
  round: number;
  seconds: number;
  settled: number;
  batchMs: number[];
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const template = await createTestDatabase('benchsettletpl');
const copies = new Set<string>();
const prefix = uniquePrefix('benchsettle');
const bus = await createRedisBus({ prefix, redisUrl: TEST_REDIS_URL, onError: (err, ctx) => log(`bus: ${ctx}: ${String(err)}`) });

async function copyOfTemplate(round: number): Promise<string> {
  const name = `${template.name}_r${round}`;
  await admin.query(`create database "${name}" template "${template.name}"`);
  copies.add(name);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
async function dropCopy(name: string) {
  await admin.query(`drop database if exists "${name}" with (force)`);
  copies.delete(name);
}

async function ledgerClean(orm: Orm, side: Side, marketId: number) {
  const problems = await checkLedger(orm.em.fork());
  const open = await db(orm.em.fork())
    .selectFrom('position_legs')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('market_id', '=', int8(marketId))
    .where('outcome', '=', 'pending')
    .executeTakeFirstOrThrow();
  if (problems.length || Number(open.n) !== 0) {
    throw new Error(`${side}: ${problems.length} ledger problems ${JSON.stringify(problems.slice(0, 3))}, ${open.n} legs still pending`);
  }
  return problems.length;
}

async function runSide(side: Side, round: number, orm: Orm, client: pg.Client, marketId: number, nowMs: number): Promise<Run> {
  const batchMs: number[] = [];
  let settled = 0;
  const t0 = performance.now();
  if (side === 'plain-sql') {
    const r = await settleWindowPlainSql(client, marketId, OUTCOME, nowMs, SETTLE_BATCH);
    settled = r.settled;
    batchMs.push(...r.batchMs);
  } else {
    // As workers/resolve-window.worker.ts: record the outcome (first writer wins), then settle in batches.
    await repos(orm.em.fork()).positions.insertResolution({
      marketId,
      outcome: OUTCOME,
      openPrice: null,
      closePrice: null,
      source: 'bench',
      resolvedBy: 'operator',
      resolvedAtMs: nowMs,
    });
    let last = performance.now();
    const total = await settleWindow(orm.em.fork(), marketId, OUTCOME, nowMs, {
      onBatch: async (b) => {
        if (side === 'service') await publishRfqEvents(bus, b.events, warnLog);
        // The proposed publishRfqEvents: every frame sent at once, then awaited together. FIFO still holds:
        // ioredis writes commands in call order on its one connection (the pg bus has a one-client pool).
        if (side === 'service-pipelined') await Promise.all(b.events.map((e) => bus.publish(e.topic, e)));
        const now = performance.now();
        batchMs.push(now - last);
        last = now;
      },
    });
    settled = total.settled;
  }
  const seconds = (performance.now() - t0) / 1000;
  if (settled !== N) throw new Error(`${side}: settled ${settled} of ${N}`);
  return { side, round, seconds, settled, batchMs };
}

const warnLog = { warn: (o: unknown, m?: string) => log(`warn ${m} ${JSON.stringify(o)}`) };
const profile = values.profile ? profileRepositories() : null;
const profiled = new Map<string, { ms: number; calls: number }>();
let profiledSeconds = 0;
let profiledBatches = 0;

const runs: Run[] = [];
let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  for (const c of [...copies]) await dropCopy(c).catch(() => undefined);
  await template.drop().catch(() => undefined);
  await admin.end().catch(() => undefined);
  await bus.close().catch(() => undefined);
  await dropQueuePrefixes([prefix]);
}
process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));

let seed: SettleSeed;
try {
  {
    const orm = await createOrm({ databaseUrl: template.url });
    await migrate(orm);
    await orm.close(true);
    const client = new pg.Client({ connectionString: template.url });
    client.on('error', () => undefined); // a failed run drops the database under it; the error that matters is thrown
    await client.connect();
    log(`seeding ${SIDES.length} windows x ${N} positions (${values.takers} takers, ${values.makers} makers) ...`);
    seed = await seedSettlement(
      client,
      { positions: N, windows: SIDES.length, makers: Number(values.makers), takers: Number(values.takers), now: Date.now() },
      log,
    );
    await client.end();
    log(`seeded in ${seed.seconds.toFixed(1)} s`);
  }
  if (values['seed-only']) {
    process.stdout.write(`${template.url} windows ${seed.windowIds.join(',')}\n`);
    template.drop = async () => undefined;
    process.exit(0);
  }
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    const url = await copyOfTemplate(r);
    // DATABASE_PREPARED_STATEMENTS=0 measures the ORM without named statements (src/db/prepared.ts).
    const prepared = process.env.DATABASE_PREPARED_STATEMENTS;
    const orm = await createOrm({ databaseUrl: url, ...(prepared !== undefined && { preparedStatements: Number(prepared) }) });
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const problems = await checkLedger(orm.em.fork());
      if (problems.length) throw new Error(`the seed's ledger is not clean: ${JSON.stringify(problems.slice(0, 3))}`);
      const order = SIDES.map((_, i) => SIDES[(i + r) % SIDES.length]!);
      for (const side of order) {
        profile?.reset();
        const run = await runSide(side, r, orm, client, seed.windowIds[SIDES.indexOf(side)]!, Date.now());
        if (profile && side === 'service-nopub' && r >= WARMUP) {
          for (const p of profile.report()) {
            const s = profiled.get(p.method) ?? { ms: 0, calls: 0 };
            profiled.set(p.method, { ms: s.ms + p.ms, calls: s.calls + p.calls });
          }
          profiledSeconds += run.seconds;
          profiledBatches += run.batchMs.length;
        }
        await ledgerClean(orm, side, seed.windowIds[SIDES.indexOf(side)]!);
        const warm = r < WARMUP;
        log(
          `round ${r}${warm ? ' (warm-up)' : ''}: ${side.padEnd(13)} ${(run.settled / run.seconds).toFixed(0).padStart(6)} positions/s  ` +
            `(${run.seconds.toFixed(2)} s, ${run.batchMs.length} batches, checkLedger clean)`,
        );
        if (!warm) runs.push(run);
      }
    } finally {
      await client.end();
      await orm.close(true);
      await dropCopy(`${template.name}_r${r}`);
    }
  }

  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const rate = (s: Side) => median(runs.filter((x) => x.side === s).map((x) => x.settled / x.seconds));
  const batches = (s: Side) =>
    runs
      .filter((x) => x.side === s)
      .flatMap((x) => x.batchMs)
      .sort((a, b) => a - b);
  const plain = rate('plain-sql');
  const W = [[-15], [12], [13], [22], [13], [13]] as const;
  const lines = [
    `bench:settle: ${N} single-leg positions per window (${values.takers} takers, ${values.makers} makers), outcome ${OUTCOME}, ` +
      `batches of ${SETTLE_BATCH}, ${ROUNDS} rounds (+${WARMUP} warm-up) on fresh copies, median of rounds`,
    row([
      ['side', W[0][0]],
      ['positions/s', W[1][0]],
      ['vs plain SQL', W[2][0]],
      ['rounds /s', W[3][0]],
      ['batch p50 ms', W[4][0]],
      ['batch p99 ms', W[5][0]],
    ]),
  ];
  for (const s of SIDES) {
    const b = batches(s);
    lines.push(
      row([
        [s, W[0][0]],
        [rate(s).toFixed(0), W[1][0]],
        [`${((100 * rate(s)) / plain).toFixed(0)}%`, W[2][0]],
        [
          runs
            .filter((x) => x.side === s)
            .map((x) => (x.settled / x.seconds).toFixed(0))
            .join('/'),
          W[3][0],
        ],
        [percentile(b, 50).toFixed(1), W[4][0]],
        [percentile(b, 99).toFixed(1), W[5][0]],
      ]),
    );
  }
  const svc = rate('service');
  lines.push(
    `targets (docs/performance.md): service >= 5,000/s: ${svc >= 5000 ? 'met' : 'MISSED'} (${svc.toFixed(0)}/s); ` +
      `>= 50% of plain SQL: ${svc >= plain / 2 ? 'met' : 'MISSED'} (${((100 * svc) / plain).toFixed(0)}%). checkLedger empty after every side.`,
  );
  lines.push(await busLine(bus, N, ROUNDS));
  lines.push(
    await commitLine(
      () => copyOfTemplate(99),
      () => dropCopy(`${template.name}_r99`),
    ),
  );
  if (profile) {
    const perBatch = (ms: number) => (ms / profiledBatches).toFixed(1);
    let sqlMs = 0;
    lines.push(`where service-nopub's time goes (${profiledBatches} batches, per batch ms; repository calls are awaited SQL):`);
    for (const [method, s] of [...profiled.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
      sqlMs += s.ms;
      lines.push(`  ${method.padEnd(44)} ${perBatch(s.ms).padStart(8)} ms  (${s.calls} calls)`);
    }
    lines.push(`  ${'rest: JavaScript, BEGIN/COMMIT, fork'.padEnd(44)} ${perBatch(profiledSeconds * 1000 - sqlMs).padStart(8)} ms`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await cleanup();
}
