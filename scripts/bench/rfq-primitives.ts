// Micro-benchmark of the RFQ building blocks (a benchmark, not a test): typed-data hashing, signing and
// recovery on one core, and the bus round trip (publish on one instance -> handler on another) on Redis
// and PostgreSQL. These are the raw ceilings of docs/performance.md.
//   npm run bench:rfq-primitives [-- --messages=2000]
import { RFQ_EIP712_SALT_DEV } from '../../src/constants.js';
import { Worker } from 'node:worker_threads';
import { hashTypedData, recoverTypedDataAddress } from 'viem';
import { recoverSigner } from '../../src/domain/signatures/recover.js';
import { privateKeyToAccount } from 'viem/accounts';
import { createBus } from '../../src/bus/create.js';
import { type Bus } from '../../src/bus/bus.js';
import { orderTypedData, quoteTypedData, rfqDomain, verifyOrderSignature, type RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { ANVIL0_KEY, EXAMPLE_ORDER } from '../../src/testing/rfq-example.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix } from '../../src/testing/postgres.js';
import { percentile, row } from './harness.js';

const MESSAGES = Number(process.argv.find((a) => a.startsWith('--messages='))?.split('=')[1] ?? 2000);
const account = privateKeyToAccount(ANVIL0_KEY);
const domain = rfqDomain('contest-rfq-service', 8453, RFQ_EIP712_SALT_DEV);
const order: RfqOrderJson = EXAMPLE_ORDER;

async function rate(label: string, n: number, fn: (i: number) => unknown): Promise<void> {
  for (let i = 0; i < Math.min(50, n); i++) await fn(i); // warm-up
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(i);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  // Per CPU-second too: on a shared, loaded box the wall-clock rate mostly measures the neighbours.
  console.log(
    `${row([
      [label, -48],
      [(n / s).toFixed(0), 6],
    ])}/s wall  ${row([[(n / cpu).toFixed(0), 6]])}/s per CPU-second  (n=${n})`,
  );
}

async function roundTrip(label: string, a: Bus, b: Bus): Promise<void> {
  let resolve: (() => void) | null = null;
  b.subscribe('rfq.quote', () => resolve?.());
  const once = async (i: number) => {
    const got = new Promise<void>((r) => (resolve = r));
    const t0 = process.hrtime.bigint();
    await a.publish('rfq.quote', { rfq_id: '0f8e2a9c-4b1d-4c6e-9a7f-3d2b1c0e5f6a', seq: i });
    await got;
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  for (let i = 0; i < 100; i++) await once(i);
  const ms: number[] = [];
  const t0 = Date.now();
  for (let i = 0; i < MESSAGES; i++) ms.push(await once(i));
  const secs = (Date.now() - t0) / 1000;
  ms.sort((x, y) => x - y);
  const q = (p: number) => percentile(ms, p).toFixed(3);
  console.log(
    `${label.padEnd(48)} p50 ${q(50)} ms  p99 ${q(99)} ms  max ${ms.at(-1)!.toFixed(3)} ms  (${(MESSAGES / secs).toFixed(0)} msg/s sequential, n=${MESSAGES})`,
  );
}

console.log(`node ${process.version}, ${new Date().toISOString()}`);
const typed = orderTypedData(domain, order);
const signature = await account.signTypedData(typed);
const quoteTyped = quoteTypedData(domain, {
  rfq_id: '0f8e2a9c-4b1d-4c6e-9a7f-3d2b1c0e5f6a',
  maker: account.address,
  odds_bps: 26_000,
  max_fill_micros: 10_000_000,
  valid_until_ms: 1767225601000,
});
const quoteSig = await account.signTypedData(quoteTyped);
await rate('hashTypedData (RfqOrder, 2 legs)', 5000, () => hashTypedData(typed));
await rate('signTypedData (RfqOrder, 2 legs)', 500, () => account.signTypedData(typed));
await rate('recoverTypedDataAddress (RfqOrder, 2 legs)', 500, () => recoverTypedDataAddress({ ...typed, signature }));
await rate('recoverTypedDataAddress (Quote)', 500, () => recoverTypedDataAddress({ ...quoteTyped, signature: quoteSig }));
await rate('verifyOrderSignature (ours: one hash + native recover)', 5000, () => verifyOrderSignature(domain, order, signature));
const digest = hashTypedData(typed);
await rate('recoverSigner (native libsecp256k1, digest given)', 5000, () => recoverSigner(digest, signature));
// What a worker-thread pool would add per recovery (the former SIGNATURE_THREADS): one message to a thread
// and its answer, with no work at all on the thread.
const echo = new Worker(
  'require("node:worker_threads").parentPort.on("message", (m) => require("node:worker_threads").parentPort.postMessage(m))',
  {
    eval: true,
  },
);
await rate(
  'worker-thread round trip (postMessage there and back, no work)',
  5000,
  () => new Promise((r) => (echo.once('message', r), echo.postMessage({ digest, signature }))),
);
await echo.terminate();

const db = await createTestDatabase('benchbus');
try {
  for (const [label, urls] of [
    ['bus round trip: Redis pub/sub', { redisUrl: TEST_REDIS_URL }],
    ['bus round trip: PostgreSQL NOTIFY/LISTEN', { databaseUrl: db.url }],
  ] as const) {
    const prefix = uniquePrefix('bench');
    const a = await createBus({ prefix, ...urls });
    const b = await createBus({ prefix, ...urls });
    try {
      await roundTrip(label, a, b);
    } finally {
      await a.close();
      await b.close();
    }
  }
} finally {
  await db.drop();
}
