// The infrastructure operators run (docs/operations.md, "Managed PostgreSQL and Redis"), started locally by
// src/testing/managed-infra.ts: PgBouncer in transaction mode in front of PostgreSQL, and a redis-server that
// speaks TLS only (`rediss://`, a certificate made at start). Migrations run on the direct connection; the
// service's DATABASE_URL goes through PgBouncer, its REDIS_URL (queue and bus) over TLS. Through them: a
// deposit, a withdrawal, an RFQ filled by a maker over the WebSocket, the window's settlement, and
// `ledger:check` clean. Then the PostgreSQL-only deployment: a LISTEN connection through the pooler is refused
// at start with a message saying so, and a direct DATABASE_LISTEN_URL makes it run behind the pooler.
// Without pgbouncer, openssl or a TLS-capable redis-server the file fails (never skips): .ci/run installs them.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWithdrawal, getPosition, resolveMarketWindow } from '../generated/openapi/sdk.gen.js';
import { createPgBus, ListenNotDelivered } from './bus/pg.js';
import { createOrm, migrate } from './db/orm.js';
import { createTestPrivy, randomWallet } from './testing/identity.js';
import { ledgerProblems } from './testing/money.js';
import { startPgBouncer, startTlsRedis, type Bouncer, type TlsRedis } from './testing/managed-infra.js';
import { createTestDatabase, uniquePrefix, type TestDatabase } from './testing/postgres.js';
import { balances, buildOrder, currentMarketId, fetchDomain, fundWallet, newTaker, postOrder, readyMaker } from './testing/rfq-trade.js';
import { sdkClient, send } from './testing/sdk-client.js';
import { startServiceProcess, type ServiceProcess } from './testing/service-process.js';

const SIWE_DOMAIN = 'managed.test';
const USDC = 1_000_000;

let bouncer: Bouncer;
let redis: TlsRedis;
/** A database for each describe below, migrated on the direct connection. */
let dbManaged: TestDatabase;
let dbPgOnly: TestDatabase;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [bouncer, redis, dbManaged, dbPgOnly] = await Promise.all([
    startPgBouncer(),
    startTlsRedis(),
    database('managed'),
    database('managedpg'),
  ]);
  cleanups.push(
    () => bouncer.stop(),
    () => redis.stop(),
  );
}, 30_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function database(label: string): Promise<TestDatabase> {
  const db = await createTestDatabase(label);
  cleanups.push(() => db.drop());
  // The migration step on the direct connection (a clone of the migrated template: nothing is pending).
  const orm = await createOrm({ databaseUrl: db.url, preparedStatements: 0 });
  try {
    expect(await migrate(orm)).toEqual([]);
  } finally {
    await orm.close(true);
  }
  return db;
}

/** The service with DATABASE_URL through PgBouncer: prepared statements only when this PgBouncer tracks them. */
function pooledEnv(db: TestDatabase, queuePrefix: string): Record<string, string | undefined> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: bouncer.urlFor(db.name),
    DATABASE_PREPARED_STATEMENTS: bouncer.tracksPreparedStatements ? undefined : '0',
    MIGRATE_ON_START: 'false',
    QUEUE_PREFIX: queuePrefix,
    RATE_LIMIT_PER_MINUTE: '0',
    SIWE_DOMAIN,
  };
}

async function started(env: Record<string, string | undefined>): Promise<ServiceProcess> {
  const svc = await startServiceProcess({ env });
  cleanups.push(() => svc.stop('SIGKILL'));
  return svc;
}

/** /readyz's answer once it says `ready` (the workers' first heartbeat may land just after the API listens). */
async function ready(svc: ServiceProcess): Promise<Record<string, unknown>> {
  const read = async () => (await fetch(`${svc.baseUrl}/readyz`)).json() as Promise<Record<string, unknown>>;
  await expect.poll(async () => (await read()).status, { timeout: 20_000, interval: 250 }).toBe('ready');
  return read();
}

/** The check `npm run ledger:check` runs (src/testing/money.ts, the same repository and rules), on a connection to `url`. */
async function ledgerCheck(url: string): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await ledgerProblems(c);
  } finally {
    await c.end();
  }
}

/** PgBouncer's own count of the transactions it carried to `database` (its admin console, SHOW STATS). */
async function pooledTransactions(database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: bouncer.adminUrl });
  await admin.connect();
  try {
    // The admin console speaks the simple protocol only.
    const { rows } = await admin.query<{ database: string; total_xact_count: string }>({
      text: 'SHOW STATS',
      queryMode: 'simple',
    } as never);
    return Number(rows.find((r) => r.database === database)?.total_xact_count ?? 0);
  } finally {
    await admin.end();
  }
}

describe('PostgreSQL through PgBouncer (transaction mode), Redis over TLS', () => {
  it('deposit, withdrawal, an RFQ fill, its settlement, and ledger:check clean', async () => {
    const db = dbManaged;
    const privy = await createTestPrivy();
    const operatorToken = `managed-operator-${randomBytes(12).toString('hex')}`;
    const prefix = uniquePrefix('managed');
    const env = {
      ...pooledEnv(db, prefix),
      REDIS_URL: redis.url,
      NODE_EXTRA_CA_CERTS: redis.caFile, // the test certificate, as an operator adds a provider's CA
      OPERATOR_TOKEN: operatorToken,
      RFQ_QUOTE_WINDOW_MS: '2000',
      DEMO_ONCHAIN_BALANCE_MICROS: String(1_000 * USDC),
      MARKET_ASSETS: 'BTC,ETH',
      MARKET_DURATIONS: '8,86400', // 8-second windows: the operator resolves the fill's within the test
      MARKET_BETTING_CLOSE_BUFFER_MS: '3500',
      ...privy.env,
    };
    const svc = await started(env);
    expect(svc.logs.find((l) => l.msg === 'runtime ready')).toMatchObject({
      deployment: 'production',
      queue_backend: 'redis',
      bus_backend: 'redis',
    });
    expect((await ready(svc)).checks).toMatchObject({ database: 'ok', queue: 'ok', bus: 'ok', workers: 'ok' });

    // Deposit and withdrawal (settled at once by the demo settlement: a 200 carries its transaction hash).
    const taker = await newTaker(svc.baseUrl, privy, 5 * USDC);
    const withdrawal = await send(
      createWithdrawal({
        client: sdkClient(svc.baseUrl, taker.token),
        body: { amount_micros: USDC, destination_address: randomWallet().address, idempotency_key: randomUUID() },
      }),
    );
    expect(withdrawal.status).toBe(200);
    expect(await balances(svc.baseUrl, taker.token)).toEqual({ available: String(4 * USDC), reserved: '0' });

    // A maker quoting over the WebSocket fills an order on an 8 s ETH window with betting open for the quote window.
    const domain = await fetchDomain(svc.baseUrl);
    const maker = await readyMaker(svc.baseUrl, { operatorToken, siweDomain: SIWE_DOMAIN, domain, collateralMicros: 10 * USDC });
    cleanups.push(async () => maker.close());
    maker.autoQuote(() => ({ odds_bps: 30_000, max_fill_micros: 5 * USDC }));
    let w = await currentMarketId(svc.baseUrl, 'ETH', 8);
    while (w.bettingClosesAtMs - Date.now() < 3_000) {
      await new Promise((r) => setTimeout(r, 250));
      w = await currentMarketId(svc.baseUrl, 'ETH', 8);
    }
    const order = buildOrder(taker.wallet.address, [{ market_id: w.marketId, direction: 'up' }], { stake_micros: USDC });
    const res = await postOrder(svc.baseUrl, taker, domain, order);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'filled', filled_stake_micros: String(USDC), payout_micros: String(3 * USDC) });
    expect(await maker.next('quote_result', (f) => f.rfq_id === res.body.rfq_id)).toMatchObject({ status: 'filled' });

    // The operator resolves the window once its betting has closed; the settlement job (BullMQ over TLS) pays the winner.
    await new Promise((r) => setTimeout(r, Math.max(0, w.bettingClosesAtMs - Date.now())));
    const resolve = () =>
      send(
        resolveMarketWindow({ client: sdkClient(svc.baseUrl, operatorToken), path: { market_id: w.marketId }, body: { outcome: 'YES' } }),
      );
    await expect.poll(async () => (await resolve()).status, { timeout: 10_000, interval: 100 }).toBe(200);
    const positionId = res.body.position_id as string;
    const position = async () =>
      (await send(getPosition({ client: sdkClient(svc.baseUrl, taker.token), path: { position_id: positionId } }))).data;
    await expect.poll(async () => (await position())?.status, { timeout: 30_000, interval: 250 }).toBe('won');
    expect(await position()).toMatchObject({ pnl_micros: String(2 * USDC) });
    expect(await balances(svc.baseUrl, taker.token)).toEqual({ available: String(6 * USDC), reserved: '0' });
    expect(await maker.next('position_settled', (f) => f.position_id === positionId, 10_000)).toMatchObject({ outcome: 'won' });

    // The books balance (the ledger check through the pooler too); the traffic went through PgBouncer and TLS Redis.
    expect(await ledgerCheck(bouncer.urlFor(db.name))).toEqual([]);
    expect(await pooledTransactions(db.name)).toBeGreaterThan(50);
    const tls = new Redis(redis.url, { tls: { ca: readFileSync(redis.caFile) }, maxRetriesPerRequest: 1 });
    cleanups.push(async () => tls.disconnect());
    const [, keys] = await tls.scan('0', 'MATCH', `bull:${prefix}_*`, 'COUNT', 10_000);
    expect(keys.length).toBeGreaterThan(0);
    expect(await svc.stop('SIGTERM')).toBe(0);
  }, 90_000);
});

describe('PostgreSQL-only deployment behind PgBouncer: the LISTEN connection', () => {
  it('a LISTEN through the pooler is told apart at once: the probe comes back on the publishing connection', async () => {
    const url = bouncer.urlFor(dbPgOnly.name);
    const refused = await createPgBus({
      prefix: uniquePrefix('pgblisten'),
      databaseUrl: url,
      listenUrl: url,
      onError: () => undefined,
    }).then(
      () => new Error('the bus started'),
      (e: Error) => e,
    );
    expect(refused).toBeInstanceOf(ListenNotDelivered);
    expect((refused as ListenNotDelivered).failure).toBe('same-session');
  });

  it('refuses to start when DATABASE_LISTEN_URL goes through the pooler, and runs behind it with a direct one', async () => {
    const env = pooledEnv(dbPgOnly, uniquePrefix('managedpg'));
    // Both at once (one start-up's wait): the LISTEN through the pooler, and the direct connection for the session
    // work (the bus's LISTEN, BullMQ's PostgreSQL backend), which runs.
    const [refused, svc] = await Promise.all([
      startServiceProcess({ env: { ...env, DATABASE_LISTEN_URL: bouncer.urlFor(dbPgOnly.name) }, timeoutMs: 30_000 }).then(
        (p) => p.stop('SIGKILL').then(() => new Error('started')),
        (e: Error) => e,
      ),
      started({ ...env, DATABASE_LISTEN_URL: dbPgOnly.url }),
    ]);
    expect(refused.message).toMatch(/exited \(1\)/);
    expect(refused.message).toMatch(
      /LISTEN connection did not receive a probe notification.*transaction mode.*Set DATABASE_LISTEN_URL to a direct/,
    );
    expect(svc.logs.find((l) => l.msg === 'runtime ready')).toMatchObject({
      deployment: 'postgres',
      queue_backend: 'postgres',
      bus_backend: 'postgres',
    });
    expect((await ready(svc)).checks).toMatchObject({ database: 'ok', queue: 'ok', bus: 'ok', workers: 'ok' });
    // `workers: ok` is a recent heartbeat row: the heartbeat job went through BullMQ's PostgreSQL backend (direct).
    const direct = new pg.Client({ connectionString: dbPgOnly.url });
    await direct.connect();
    const beats = await direct
      .query<{ n: number }>('select sum(jobs_processed)::int as n from worker_heartbeats')
      .finally(() => direct.end());
    expect(beats.rows[0]!.n).toBeGreaterThan(0);
    const before = await pooledTransactions(dbPgOnly.name);
    const u = await fundWallet(svc.baseUrl, randomWallet(), SIWE_DOMAIN, 2 * USDC);
    expect(await balances(svc.baseUrl, u.token)).toEqual({ available: String(2 * USDC), reserved: '0' });
    expect(await pooledTransactions(dbPgOnly.name)).toBeGreaterThan(before);
    expect(await ledgerCheck(dbPgOnly.url)).toEqual([]);
    expect(await svc.stop('SIGTERM')).toBe(0);
  }, 90_000);
});
