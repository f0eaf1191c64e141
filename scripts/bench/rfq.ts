// `npm run bench:rfq [-- --n 300 --rate 100 --legs 2 --takers 8 --via http --backends redis,postgres]`:
// rfq-design 3.15 item 1, "RFQ -> first quote", with the floors measured in the same run (a benchmark, not a test).
//
// For each backend (PostgreSQL + Redis, and PostgreSQL only: the bus is then LISTEN/NOTIFY) two API processes
// A and B run on one database. A market maker is connected to B and subscribed to everything; it quotes each
// RFQ as soon as its frame arrives. RFQs are created at `--rate` per second (open loop, orders signed ahead):
//   --via http (default): POST /v1/rfq to A (manual mode: answered at once), so every frame crosses from A
//     to the maker on B;
//   --via domain: this process does what that handler does (createRfq in a transaction, publish after
//     commit), which splits the time at the commit: create -> commit, commit -> frame (bus and gateway B).
// Measured per RFQ:
//   POST sent (create) -> rfq frame at the maker on B   (target p50 <= 10 ms, p99 <= 50 ms at 100 RFQ/s)
//   POST sent -> the maker's quote_ack                  (the maker signs its quote: ~1 ms of its own CPU)
// and, next to them, the floor of the first: one order recovery (viem), one reserve-shaped write transaction
// (lock a row, update, insert, commit) and one bus hop, each measured sequentially in this run.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { MarketMakerClient } from '@contest-rfq/sdk';
import type { Bus } from '../../src/bus/bus.js';
import { createBus } from '../../src/bus/create.js';
import { publishRfqEvents } from '../../src/bus/rfq-events.js';
import { loadConfig } from '../../src/config.js';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { db } from '../../src/db/schema.js';
import { post } from '../../src/domain/ledger/ledger.js';
import { ensureWindows } from '../../src/domain/markets/markets.js';
import { createRfq } from '../../src/domain/rfq/api.js';
import type { RfqDeps } from '../../src/domain/rfq/deps.js';
import { orderTypedData, rfqDomain, type RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { createLogger } from '../../src/logger.js';
import { createTestPrivy } from '../../src/testing/identity.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix } from '../../src/testing/postgres.js';
import { newTaker } from '../../src/testing/rfq-trade.js';
import { startServiceProcess, type ServiceProcess } from '../../src/testing/service-process.js';
import { percentile, row } from './harness.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '300' },
    rate: { type: 'string', default: '100' },
    legs: { type: 'string', default: '2' },
    backends: { type: 'string', default: 'redis,postgres' },
    floors: { type: 'string', default: '200' },
    takers: { type: 'string', default: '8' },
    via: { type: 'string', default: 'http' },
  },
});
const N = Number(values.n);
const RATE = Number(values.rate);
const LEGS = Math.min(4, Math.max(1, Number(values.legs)));
const FLOOR_N = Number(values.floors);
const BACKENDS = values.backends.split(',').map((s) => s.trim()) as Array<'redis' | 'postgres'>;
/** Takers the RFQs rotate over: createRfq serialises one taker's creates (open-RFQ limit under a user lock). */
const TAKERS = Number(values.takers);
const VIA = values.via === 'domain' ? 'domain' : 'http';
const OPERATOR_TOKEN = 'bench-operator-token-0123456789';
const log = createLogger('warn');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;

interface Stats {
  p50: number;
  p99: number;
  max: number;
  n: number;
}
const stats = (xs: number[]): Stats => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) ?? NaN, n: s.length };
};
const fmt = (v: number) => v.toFixed(2).padStart(8);

async function fund(orm: Orm, address: string, micros: bigint): Promise<string> {
  const id = randomUUID();
  await db(orm.em.fork()).insertInto('users').values({ id, wallet_address: address }).execute();
  await orm.em.fork().transactional((tx) =>
    post(tx, {
      kind: 'deposit',
      reference: id,
      entries: [
        { account: { system: 'settlement_clearing' }, amount: -micros },
        { account: { userId: id, kind: 'user_available' }, amount: micros },
      ],
    }),
  );
  return id;
}

/** Sequential floors in this run: order recovery, a reserve-shaped write transaction, a bus hop. */
async function floors(dbUrl: string, mode: 'redis' | 'postgres', domain: ReturnType<typeof rfqDomain>, order: RfqOrderJson) {
  const taker = privateKeyToAccount(generatePrivateKey());
  const typed = orderTypedData(domain, { ...order, taker: taker.address });
  const signature = await taker.signTypedData(typed);
  const rec: number[] = [];
  for (let i = 0; i < FLOOR_N + 20; i++) {
    const t0 = process.hrtime.bigint();
    await recoverTypedDataAddress({ ...typed, signature });
    if (i >= 20) rec.push(ms(t0, process.hrtime.bigint()));
  }
  const pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
  const tx: number[] = [];
  try {
    await pool.query(
      'create table if not exists bench_floor (id int primary key, n bigint not null); insert into bench_floor values (1, 0) on conflict do nothing',
    );
    await pool.query('create table if not exists bench_floor_log (id uuid primary key, at bigint not null)');
    for (let i = 0; i < FLOOR_N + 20; i++) {
      const c = await pool.connect();
      const t0 = process.hrtime.bigint();
      try {
        await c.query('begin');
        await c.query('select n from bench_floor where id = 1 for update');
        await c.query('update bench_floor set n = n + 1 where id = 1');
        await c.query('insert into bench_floor_log values ($1, $2)', [randomUUID(), Date.now()]);
        await c.query('commit');
      } finally {
        c.release();
      }
      if (i >= 20) tx.push(ms(t0, process.hrtime.bigint()));
    }
  } finally {
    await pool.end();
  }
  const prefix = uniquePrefix('benchrfqhop');
  const urls = mode === 'redis' ? { redisUrl: TEST_REDIS_URL } : { databaseUrl: dbUrl };
  const a = await createBus({ prefix, ...urls });
  const b = await createBus({ prefix, ...urls });
  const hop: number[] = [];
  try {
    let got: (() => void) | null = null;
    b.subscribe('rfq.quote', () => got?.());
    for (let i = 0; i < FLOOR_N + 20; i++) {
      const arrived = new Promise<void>((r) => (got = r));
      const t0 = process.hrtime.bigint();
      await a.publish('rfq.quote', { rfqId: randomUUID() });
      await arrived;
      if (i >= 20) hop.push(ms(t0, process.hrtime.bigint()));
    }
  } finally {
    await a.close();
    await b.close();
  }
  return { recover: stats(rec), tx: stats(tx), hop: stats(hop) };
}

async function run(mode: 'redis' | 'postgres') {
  const testDb = await createTestDatabase(`benchrfq${mode}`);
  const privy = await createTestPrivy();
  const env: Record<string, string | undefined> = {
    LOG_LEVEL: 'info',
    DATABASE_URL: testDb.url,
    REDIS_URL: mode === 'redis' ? TEST_REDIS_URL : undefined,
    QUEUE_PREFIX: uniquePrefix(`benchrfq${mode}`),
    RATE_LIMIT_PER_MINUTE: '0',
    OPERATOR_TOKEN,
    HTTP_MAX_CONNECTIONS_PER_IP: '0', // every request comes from 127.0.0.1
    RFQ_MAX_OPEN_PER_USER: '10000',
    MM_MAX_QUOTES_PER_SECOND: String(Math.max(100, 2 * RATE)),
    MM_MAX_FRAMES_PER_SECOND: String(Math.max(100, 4 * RATE)),
    ...privy.env,
  };
  const procs: ServiceProcess[] = [];
  let orm: Orm | undefined;
  let bus: Bus | undefined;
  let maker: MarketMakerClient | undefined;
  try {
    procs.push(await startServiceProcess({ env }));
    procs.push(await startServiceProcess({ env }));
    const [a, b] = procs as [ServiceProcess, ServiceProcess];
    const config = loadConfig(env);
    const deps: RfqDeps = { settings: { ...config.rfq, bettingCloseBufferMs: config.markets.bettingCloseBufferMs } };
    const domain = rfqDomain(config.rfq.eip712Name, config.rfq.signingChainId);
    orm = await createOrm({ databaseUrl: testDb.url });
    bus = await createBus({ prefix: env.QUEUE_PREFIX!, redisUrl: env.REDIS_URL, databaseUrl: testDb.url });

    // Markets: the next 15-minute window of LEGS assets (betting open for the whole run).
    const assets = config.markets.assets.slice(0, LEGS);
    const startAtMs = (Math.floor(Date.now() / 900_000) + 1) * 900_000;
    await ensureWindows(
      orm.em.fork(),
      assets.map((asset) => ({ asset, durationSecs: 900, startAtMs })),
    );
    const marketIds = (
      await db(orm.em.fork())
        .selectFrom('markets')
        .select('market_id')
        .where('kind', '=', 'rfq_window')
        .where('duration_secs', '=', 900)
        .where('start_at_ms', '=', String(startAtMs))
        .where('asset', 'in', assets)
        .execute()
    ).map((r) => Number(r.market_id));

    // Takers signed in on A (a session token for the POST) and funded by deposits.
    const takers = await Promise.all(
      Array.from({ length: TAKERS }, async () => {
        const party = await newTaker(a.baseUrl, privy, 1_000_000_000);
        return { account: party.wallet, userId: party.userId, token: party.token };
      }),
    );
    const mmAccount = privateKeyToAccount(generatePrivateKey());
    const reg = await fetch(`${a.baseUrl}/v1/admin/market-makers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ wallet_address: mmAccount.address, name: 'bench' }),
    });
    if (reg.status !== 201) throw new Error(`registering the market maker: ${reg.status} ${await reg.text()}`);
    await fund(orm, mmAccount.address, 1_000_000_000_000n);

    // The maker on B: quotes each RFQ on arrival; timestamps in this process's clock.
    maker = new MarketMakerClient({ url: `${b.baseUrl.replace('http', 'ws')}/v1/ws`, account: mmAccount, reconnect: false, rfqDomain: domain });
    const frameAt = new Map<string, bigint>();
    const ackAt = new Map<string, bigint>();
    const refused = new Map<string, string>();
    maker.on('rfq', (rfq) => {
      frameAt.set(rfq.rfq_id, process.hrtime.bigint());
      void maker!
        .quote({ rfq_id: rfq.rfq_id, odds_bps: 2 ** LEGS * 9_500, max_fill_micros: Number(rfq.stake_micros), valid_until_ms: rfq.expires_at_ms })
        .then((ack) => (ack.accepted ? ackAt.set(rfq.rfq_id, process.hrtime.bigint()) : refused.set(rfq.rfq_id, String(ack.error))))
        .catch((err: Error) => refused.set(rfq.rfq_id, err.message));
    });
    await maker.start().waitForSession();
    await maker.subscribe();

    let nonce = Date.now();
    const sentAt = new Map<string, bigint>();
    const committedAt = new Map<string, bigint>();
    const failures: string[] = [];
    /** Orders signed ahead (the takers' work, not timed and not on this process's clock during the run). */
    const signed = async (count: number) => {
      // Manual mode: open until the deadline (then swept). Signing takes a while on a busy machine: the
      // latest deadline RFQ_MAX_DEADLINE_MS (60 s) allows, less a margin, so no order expires before its turn.
      const deadline = Date.now() + 55_000;
      return Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const taker = takers[i % TAKERS]!;
          const order: RfqOrderJson = {
            taker: taker.account.address,
            legs: marketIds.map((market_id) => ({ market_id, direction: 'up' as const })),
            stake_micros: 1_000_000,
            min_odds_bps: 10_001,
            order_type: 'IOC',
            nonce: ++nonce,
            deadline_ms: deadline,
          };
          return { taker, order, signature: await taker.account.signTypedData(orderTypedData(domain, order)) };
        }),
      );
    };
    const createOne = async ({ taker, order, signature }: Awaited<ReturnType<typeof signed>>[number]) => {
      const t0 = process.hrtime.bigint();
      if (VIA === 'http') {
        const res = await fetch(`${a.baseUrl}/v1/rfq`, {
          method: 'POST',
          headers: { authorization: `Bearer ${taker.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ order, signature, fill_mode: 'manual', idempotency_key: randomUUID() }),
        });
        const body = (await res.json()) as { rfq_id?: string; code?: string };
        if (res.status !== 201 || !body.rfq_id) throw new Error(`POST /v1/rfq answered ${res.status} ${body.code ?? ''}`);
        sentAt.set(body.rfq_id, t0);
        committedAt.set(body.rfq_id, process.hrtime.bigint()); // the answer: after commit and publish
        return;
      }
      const write = await orm!.em.fork().transactional((tx) =>
        createRfq(tx, deps, {
          userId: taker.userId,
          sessionAddress: taker.account.address,
          order,
          signature,
          fillMode: 'manual',
          idempotencyKey: randomUUID(),
        }),
      );
      sentAt.set(write.rfq.rfq.id, t0);
      committedAt.set(write.rfq.rfq.id, process.hrtime.bigint());
      await publishRfqEvents(bus!, write.events, log);
    };

    // Warm-up, then the open-loop run at RATE per second.
    for (const o of await signed(20)) await createOne(o);
    await sleep(500);
    sentAt.clear();
    committedAt.clear();
    frameAt.clear();
    ackAt.clear();
    const orders = await signed(N);
    const cpu0 = process.cpuUsage();
    const started = Date.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < N; i++) {
      const due = started + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      inFlight.push(createOne(orders[i]!).catch((err: Error) => void failures.push(err.message)));
    }
    const offered = N / ((Date.now() - started) / 1000);
    await Promise.all(inFlight);
    const elapsedS = (Date.now() - started) / 1000;
    /** RFQs created (answered) per second over the run: below the offered rate, the creator queued them. */
    const completed = N / elapsedS;
    const cpu = process.cpuUsage(cpu0);
    /** CPU time this process used per RFQ, and its share of one core: a low share means the machine is busy. */
    const cpuPerRfqMs = (cpu.user + cpu.system) / 1000 / N;
    const coreShare = (cpu.user + cpu.system) / 1e6 / elapsedS;
    for (let waited = 0; waited < 5_000 && ackAt.size + refused.size < sentAt.size; waited += 100) await sleep(100);

    const toFrame: number[] = [];
    const toAck: number[] = [];
    const toCommit: number[] = [];
    const commitToFrame: number[] = [];
    for (const [id, t0] of sentAt) {
      const f = frameAt.get(id);
      const k = ackAt.get(id);
      const c = committedAt.get(id)!;
      toCommit.push(ms(t0, c));
      if (f !== undefined) toFrame.push(ms(t0, f));
      if (f !== undefined) commitToFrame.push(ms(c, f));
      if (k !== undefined) toAck.push(ms(t0, k));
    }
    const fl = await floors(testDb.url, mode, domain, {
      taker: takers[0]!.account.address,
      legs: marketIds.map((market_id) => ({ market_id, direction: 'up' as const })),
      stake_micros: 1_000_000,
      min_odds_bps: 10_001,
      order_type: 'IOC',
      nonce: 1,
      deadline_ms: Date.now() + 5_000,
    });
    return {
      offered,
      completed,
      cpuPerRfqMs,
      coreShare,
      frame: stats(toFrame),
      ack: stats(toAck),
      commit: stats(toCommit),
      fanout: stats(commitToFrame),
      lost: sentAt.size - toFrame.length,
      refused: refused.size,
      failures,
      fl,
    };
  } finally {
    await maker?.stop();
    await bus?.close();
    await orm?.close(true);
    for (const p of procs) await p.stop();
    await testDb.drop();
  }
}

console.log(
  `bench:rfq  node ${process.version}  ${new Date().toISOString()}  n=${N} at ${RATE}/s, ${LEGS} legs, via ${VIA}, maker on the other API process`,
);
for (const mode of BACKENDS) {
  const r = await run(mode);
  const floorP50 = r.fl.recover.p50 + r.fl.tx.p50 + r.fl.hop.p50;
  const label = mode === 'redis' ? 'PostgreSQL + Redis' : 'PostgreSQL only (LISTEN/NOTIFY)';
  console.log(`\n${label}: offered ${r.offered.toFixed(0)} RFQ/s, created ${r.completed.toFixed(0)} RFQ/s`);
  const creator = VIA === 'http' ? 'API process A' : 'this process (it runs createRfq)';
  if (r.offered < 0.9 * RATE || r.completed < 0.9 * RATE) {
    console.log(
      `  (below the asked ${RATE}/s: ${r.offered < 0.9 * RATE ? 'this load generator' : creator} could not keep up, so the latencies include its queue;` +
        ` this process used ${r.cpuPerRfqMs.toFixed(1)} ms of CPU per RFQ and got ${(100 * r.coreShare).toFixed(0)}% of a core)`,
    );
  }
  console.log(
    row([
      ['', -44],
      ['p50 ms', 8],
      ['p99 ms', 8],
      ['max ms', 8],
      ['n', 6],
    ]),
  );
  const line = (label: string, s: Stats) =>
    console.log(
      row([
        [label, -44],
        [fmt(s.p50), 8],
        [fmt(s.p99), 8],
        [fmt(s.max), 8],
        [s.n, 6],
      ]),
    );
  line(`${VIA === 'http' ? 'POST' : 'create'} -> rfq frame at the maker (other process)`, r.frame);
  line(`${VIA === 'http' ? 'POST' : 'create'} -> the maker's quote_ack`, r.ack);
  if (VIA === 'http') {
    line('POST -> its 201 answer from A', r.commit);
  } else {
    line('  of which create -> commit (this process)', r.commit);
    line('  of which commit -> rfq frame (bus, gateway B)', r.fanout);
  }
  line('floor: order recovery (viem, this process)', r.fl.recover);
  line('floor: reserve-shaped write tx (sequential)', r.fl.tx);
  line('floor: bus hop (publish -> other instance)', r.fl.hop);
  console.log(
    `floor sum p50 ${floorP50.toFixed(2)} ms; rfq frame p50 = ${(r.frame.p50 / floorP50).toFixed(1)}x the floor` +
      `; frames lost ${r.lost}, quotes refused ${r.refused}, create failures ${r.failures.length}${r.failures.length ? ` (${r.failures[0]})` : ''}`,
  );
}
