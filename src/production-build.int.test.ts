// The production build (issue 24 #3): `npm run build` writes dist/, and plain node runs it with no npm and
// no tsx in between: the migration step on its own, then an API process and a workers process that refuse
// to start while a migration is pending (NODE_ENV=production does not migrate at start) and serve once it
// ran. Money moves through them: a deposit and a withdrawal settle, the ledger balances; the docs portal's
// static files and the served documents come from the build; an RFQ fills (its order signed for the salt the built service serves).
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeposit, createWithdrawal, getAvailableBalance, getOperation, getReadiness } from '../generated/openapi/sdk.gen.js';
import { createTestPrivy, randomWallet, type TestPrivy } from './testing/identity.js';
import { sdkClient, sent } from './testing/sdk-client.js';
import { ledgerProblems, newUserSession } from './testing/money.js';
import { buildOrder, currentMarketId, fetchDomain, fundWallet, postOrder, readyMaker } from './testing/rfq-trade.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from './testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from './testing/service-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The run's services' build (src/testing/test-build.ts) is scripts/build.ts written to .test-build/<hash> instead
// of dist/: the same compiler, files and layout. The test runs that one when vitest's global setup made it (one
// tsc run less in CI, issue 40); alone (TEST_SERVICE_TSX=1 or no build) it runs `npm run build` into dist/.
const OUT = process.env.TEST_SERVICE_BUILD_DIR ?? 'dist';
const MAIN = `${OUT}/src/main.js`;
let db: TestDatabase;
let privy: TestPrivy;
let env: Record<string, string>;
const procs: ServiceProcess[] = [];

/** Runs a built entry point with plain node to its end: exit code and output. */
const runNode = (args: string[], extra: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const p = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH!, ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out += b));
    p.stderr.on('data', (b: Buffer) => (out += b));
    p.on('exit', (code) => resolve({ code, out }));
  });

beforeAll(async () => {
  if (OUT === 'dist') {
    const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect(built.status, built.stderr + built.stdout).toBe(0);
  }
  db = await createTestDatabase('prodbuild', undefined, { empty: true }); // the migration step runs here
  privy = await createTestPrivy();
  env = {
    NODE_ENV: 'production',
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniquePrefix('prodbuild'),
    OPERATOR_TOKEN: `prodbuild-operator-${randomUUID()}`,
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    SIWE_DOMAIN: 'build.test',
    // Production refuses the demo settlement and prices unless allowed, and needs its own EIP-712 salt.
    ALLOW_DEMO_SETTLEMENT: 'true',
    ALLOW_DEMO_PRICES: 'true',
    RFQ_EIP712_SALT: `0x${'5a'.repeat(32)}`,
    ...privy.env,
  };
}, 240_000);
afterAll(async () => {
  for (const p of procs) await p.stop('SIGKILL').catch(() => undefined);
  await db?.drop();
});

describe('the production build, run with plain node', () => {
  it('refuses to start before the migration step, migrates as its own step, then serves and settles money', async () => {
    for (const f of [
      MAIN,
      `${OUT}/src/migrate.js`,
      `${OUT}/scripts/ledger-check.js`,
      `${OUT}/scripts/prices-verify.js`,
      `${OUT}/spec/openapi.yaml`,
      `${OUT}/src/http/docs/client/portal.css`,
    ]) {
      expect(existsSync(`${ROOT}${f}`), f).toBe(true);
    }
    const early = await runNode([MAIN, '--role=api']);
    expect(early.code).toBe(75);
    expect(early.out).toMatch(
      /database migration\(s\) pending \(Migration20261120000000_initial, .*run the migration step first \(node dist\/src\/migrate\.js/,
    );

    const migrated = await runNode([`${OUT}/src/migrate.js`]);
    expect(migrated, migrated.out).toMatchObject({
      code: 0,
      out: expect.stringContaining('migrations are up to date (production deployment)'),
    });

    const api = await startServiceProcess({ entry: MAIN, args: ['--role=api'], env });
    procs.push(api);
    const workers = await startServiceProcess({ entry: MAIN, args: ['--role=workers'], env });
    procs.push(workers);
    for (const p of [api, workers]) {
      expect(p.proc.spawnargs.slice(1)).toEqual([MAIN, p === api ? '--role=api' : '--role=workers']); // no tsx, no npm
      expect(p.logs.some((l) => l.msg === 'database migrations applied')).toBe(false);
    }
    expect((await sent(getReadiness({ client: sdkClient(workers.baseUrl) }))).data).toMatchObject({
      role: 'workers',
      checks: { migrations: 'ok', database: 'ok', queue: 'ok' },
    });

    // Money through the built API and workers: a deposit and a withdrawal settle.
    const user = await newUserSession(api.baseUrl, privy);
    const client = sdkClient(api.baseUrl, user.token);
    const deposit = await sent(createDeposit({ client, body: { amount_micros: 7_000_000, idempotency_key: randomUUID() } }));
    expect([200, 202], JSON.stringify(deposit.error)).toContain(deposit.status);
    const settled = async (operationId: string) => {
      for (let i = 0; i < 100; i++) {
        const op = await sent(getOperation({ client, path: { operation_id: operationId } }));
        if (op.data?.status !== 'pending') return op.data?.status ?? JSON.stringify(op.error);
        await new Promise((r) => setTimeout(r, 200));
      }
      return 'pending';
    };
    expect(await settled(deposit.data!.operation_id)).toBe('success');
    const withdrawal = await sent(
      createWithdrawal({
        client,
        body: { amount_micros: 2_500_000, destination_address: randomWallet().address, idempotency_key: randomUUID() },
      }),
    );
    expect([200, 202], JSON.stringify(withdrawal.error)).toContain(withdrawal.status);
    expect(await settled(withdrawal.data!.operation_id)).toBe('success');
    const balance = await sent(getAvailableBalance({ client }));
    expect(balance.data).toMatchObject({ available_micros: '4500000' });

    // An RFQ fill: a maker signs in over the WebSocket and quotes, a taker's signed order fills.
    const domain = await fetchDomain(api.baseUrl);
    const maker = await readyMaker(api.baseUrl, {
      operatorToken: env.OPERATOR_TOKEN!,
      siweDomain: 'build.test',
      domain,
      collateralMicros: 10_000_000,
    });
    try {
      maker.autoQuote(() => ({ odds_bps: 30_000, max_fill_micros: 5_000_000 }));
      const taker = await fundWallet(api.baseUrl, randomWallet(), 'build.test', 5_000_000);
      const { marketId } = await currentMarketId(api.baseUrl, 'BTC', 86400);
      const order = buildOrder(taker.wallet.address, [{ market_id: marketId, direction: 'up' }], { stake_micros: 1_000_000 });
      const rfq = await postOrder(api.baseUrl, taker, domain, order);
      expect(rfq, JSON.stringify(rfq.body)).toMatchObject({ status: 201, body: { status: 'filled', payout_micros: '3000000' } });
    } finally {
      maker.close();
    }

    // What the build copied is served: the documents and the docs portal's files.
    expect((await fetch(`${api.baseUrl}/openapi.json`)).status).toBe(200);
    for (const asset of ['portal.css', 'scalar-init.js', 'scalar.js'])
      expect((await fetch(`${api.baseUrl}/docs/assets/${asset}`)).status, asset).toBe(200);

    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      expect(await ledgerProblems(sql)).toEqual([]);
    } finally {
      await sql.end();
    }
    const ledger = await runNode([`${OUT}/scripts/ledger-check.js`]);
    expect(ledger.code, ledger.out).toBe(0);
    expect(await Promise.all([api.stop('SIGTERM'), workers.stop('SIGTERM')])).toEqual([0, 0]);
  }, 180_000);
});
