// The usual integration-test set-up in one call: a database of its own, a test Privy, the real service as
// a child process (PostgreSQL + Redis, API and workers, own queue prefix, no rate limit, an operator
// token) and a plain pg client on the same database for assertions. stop() undoes all of it.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from './postgres.js';
import { startServiceProcess, type ServiceProcess, type StartOptions } from './service-process.js';
import { createTestPrivy, type TestPrivy } from './identity.js';

export interface TestService {
  db: TestDatabase;
  svc: ServiceProcess;
  privy: TestPrivy;
  sql: pg.Client;
  operatorToken: string;
  /** The settings the service was started with (to start more processes on the same database and queues). */
  env: Record<string, string | undefined>;
  stop(): Promise<void>;
}

/** `env` adds or overrides settings; a key set to undefined is left unset (e.g. `REDIS_URL: undefined` for the PostgreSQL-only deployment). */
export async function startTestService(
  label: string,
  env: Record<string, string | undefined> = {},
  opts: Omit<StartOptions, 'env'> = {},
): Promise<TestService> {
  const db = await createTestDatabase(label);
  const privy = await createTestPrivy();
  const operatorToken = `${label}-operator-${randomUUID()}`;
  let svc: ServiceProcess | undefined;
  let sql: pg.Client | undefined;
  // Each teardown step is bounded: a step that hangs (once seen in CI after idempotency-keys.int.test.ts)
  // is named on stderr and the next step still runs; the service process is SIGKILLed past its bound.
  const stop = async () => {
    await bounded('close the assertion client', 10_000, async () => sql?.end());
    await bounded(
      'SIGTERM the service',
      20_000,
      async () => svc?.stop(),
      async () => svc?.stop('SIGKILL'),
    );
    await bounded('drop the test database', 20_000, () => db.drop());
  };
  const fullEnv = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniquePrefix(label),
    RATE_LIMIT_PER_MINUTE: '0',
    OPERATOR_TOKEN: operatorToken,
    // A fresh database: migrate at start even where NODE_ENV=production would not (production-build.int.test.ts covers that).
    MIGRATE_ON_START: 'true',
    ...privy.env,
    // Production requires a deployment salt of its own and the origin SIWE messages are signed for (src/config/rules.ts).
    ...(env.NODE_ENV === 'production' ? { RFQ_EIP712_SALT: `0x${'5a'.repeat(32)}`, SIWE_DOMAIN: 'localhost:3000' } : {}),
    ...env,
  };
  try {
    svc = await startServiceProcess({ ...opts, env: fullEnv });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return { db, svc, privy, sql, operatorToken, env: fullEnv, stop };
}

async function bounded(step: string, ms: number, run: () => Promise<unknown>, onTimeout?: () => Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    const result = await Promise.race([run().then(() => 'done' as const), timedOut]);
    if (result === 'timeout') {
      process.stderr.write(`test teardown: "${step}" did not finish within ${ms} ms\n`);
      await onTimeout?.();
    }
  } finally {
    clearTimeout(timer);
  }
}
