// What the parts of `bench:rfq` share: two API processes on one database (the maker on B, POSTs to A),
// a funded market window, funded takers, registered and funded makers, latency statistics.
import { generatePrivateKey, type LocalAccount } from 'viem/accounts';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { createOrm, type Orm } from '../../src/db/orm.js';
import { db } from '../../src/db/schema.js';
import { ensureWindows } from '../../src/domain/markets/markets.js';
import { orderTypedData, rfqDomainOf, type OrderType, type RfqDomain, type RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { createLogger } from '../../src/logger.js';
import { createTestPrivy, type TestPrivy } from '../../src/testing/identity.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../../src/testing/postgres.js';
import { newTaker, type Party } from '../../src/testing/rfq-trade.js';
import { startServiceProcess, type ServiceProcess } from '../../src/testing/service-process.js';
import { BENCH_EIP712_SALT, passedThroughEnv, percentile, row } from './harness.js';
import { fundedUser } from '../../src/testing/funding.js';
import { assertNativeMatchesViem, nativeAccount } from './native-account.js';

export const OPERATOR_TOKEN = 'bench-operator-token-0123456789';
export const log = createLogger('warn');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;
export { rssKb } from './harness.js';

export interface Stats {
  p50: number;
  p95: number;
  p99: number;
  max: number;
  n: number;
}
export const stats = (xs: number[]): Stats => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), max: s.at(-1) ?? NaN, n: s.length };
};
export const fmt = (v: number) => v.toFixed(2).padStart(8);

export const statsHeader = () =>
  console.log(
    row([
      ['', -50],
      ['p50 ms', 8],
      ['p95 ms', 8],
      ['p99 ms', 8],
      ['max ms', 8],
      ['n', 6],
    ]),
  );
export const statsLine = (label: string, s: Stats) =>
  console.log(
    row([
      [label, -50],
      [fmt(s.p50), 8],
      [fmt(s.p95), 8],
      [fmt(s.p99), 8],
      [fmt(s.max), 8],
      [s.n, 6],
    ]),
  );

/** A user row for `address` with `micros` deposited (a maker's collateral is the balance of its wallet's user). */
export const fund = (orm: Orm, address: string, micros: bigint) => fundedUser(() => orm.em.fork(), address, micros);

export type Backend = 'redis' | 'postgres';

export interface Pair {
  a: ServiceProcess;
  b: ServiceProcess;
  env: Record<string, string | undefined>;
  config: Readonly<Config>;
  domain: RfqDomain;
  dbUrl: string;
  orm: Orm;
  privy: TestPrivy;
  /** The next 15-minute window of the first `legs` assets: betting open for the whole run. */
  marketIds: number[];
  stop(): Promise<void>;
}

/** Two API processes A and B on a fresh database; `extraEnv` overrides the bench defaults. */
export async function startPair(name: string, mode: Backend, legs: number, extraEnv: Record<string, string> = {}): Promise<Pair> {
  const testDb: TestDatabase = await createTestDatabase(name);
  const privy = await createTestPrivy();
  const env: Record<string, string | undefined> = {
    LOG_LEVEL: 'info',
    // As deployed (our code then skips the schema check of every outbound frame; libraries may read NODE_ENV too):
    // 12-20% less CPU per fill than NODE_ENV=development on a 2-core box. BENCH_NODE_ENV=development measures that.
    NODE_ENV: process.env.BENCH_NODE_ENV ?? 'production',
    RFQ_EIP712_SALT: BENCH_EIP712_SALT,
    // A play-money deployment: production refuses demo settlement and demo prices unless allowed (src/config/load.ts).
    ALLOW_DEMO_SETTLEMENT: 'true',
    ALLOW_DEMO_PRICES: 'true',
    SIWE_DOMAIN: 'localhost:3000', // production requires the sign-in origin (the takers here sign in with Privy)
    DATABASE_URL: testDb.url,
    REDIS_URL: mode === 'redis' ? TEST_REDIS_URL : undefined,
    QUEUE_PREFIX: uniquePrefix(name),
    RATE_LIMIT_PER_MINUTE: '0',
    OPERATOR_TOKEN,
    HTTP_MAX_CONNECTIONS_PER_IP: '0', // every request comes from 127.0.0.1
    RFQ_MAX_OPEN_PER_USER: '10000',
    MIGRATE_ON_START: 'true', // a fresh database (production processes leave migrating to its own step)
    ...passedThroughEnv(), // to both API processes
    ...privy.env,
    ...extraEnv,
  };
  const procs: ServiceProcess[] = [];
  let orm: Orm | undefined;
  const stop = async () => {
    await orm?.close(true);
    for (const p of procs) await p.stop();
    await testDb.drop();
  };
  try {
    procs.push(await startServiceProcess({ env }));
    procs.push(await startServiceProcess({ env }));
    const config = loadConfig(env);
    orm = await createOrm({ databaseUrl: testDb.url });
    const assets = config.markets.assets.slice(0, legs);
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
    const [a, b] = procs as [ServiceProcess, ServiceProcess];
    const domain = rfqDomainOf(config.rfq);
    return { a, b, env, config, domain, dbUrl: testDb.url, orm, privy, marketIds, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** `n` takers signed in on `baseUrl` (a session token for the POST), each funded with `micros` by deposit. */
export const newTakers = (baseUrl: string, privy: TestPrivy, n: number, micros: number): Promise<Party[]> =>
  Promise.all(Array.from({ length: n }, () => newTaker(baseUrl, privy, micros)));

/** A market maker registered through the operator API, its collateral deposited to its wallet's user. */
/** A registered, funded maker whose account signs natively (scripts/bench/native-account.ts). */
export async function newMaker(pair: Pair, micros = 1_000_000_000_000n): Promise<LocalAccount> {
  const key = generatePrivateKey();
  await assertNativeMatchesViem(key);
  const account = nativeAccount(key);
  const reg = await fetch(`${pair.a.baseUrl}/v1/admin/market-makers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ wallet_address: account.address, name: 'bench' }),
  });
  if (reg.status !== 201) throw new Error(`registering the market maker: ${reg.status} ${await reg.text()}`);
  await fund(pair.orm, account.address, micros);
  return account;
}

export type SignedOrder = { taker: Party; order: RfqOrderJson; signature: `0x${string}` };
let nonce = Date.now();

/**
 * `count` orders of 1 USDC on `marketIds` (up), taken by `takers` in turn, signed now: the takers' work, done
 * ahead so that it is neither timed nor on this process's clock during a run. Valid for 55 s (RFQ_MAX_DEADLINE_MS
 * is 60 s; signing takes a while on a busy machine, so no order expires before its turn).
 */
export function signOrdersAhead(
  domain: RfqDomain,
  takers: readonly Party[],
  count: number,
  marketIds: readonly number[],
  orderType: OrderType,
): Promise<SignedOrder[]> {
  const deadline = Date.now() + 55_000;
  const legs = marketIds.map((market_id) => ({ market_id, direction: 'up' as const }));
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const taker = takers[i % takers.length]!;
      const order: RfqOrderJson = {
        taker: taker.wallet.address,
        legs,
        stake_micros: 1_000_000,
        min_odds_bps: 10_001,
        order_type: orderType,
        nonce: ++nonce,
        deadline_ms: deadline,
      };
      return { taker, order, signature: await taker.wallet.signTypedData(orderTypedData(domain, order)) };
    }),
  );
}
