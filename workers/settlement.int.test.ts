// Settlement workers as separate processes (PostgreSQL + Redis): only workers settle, the outbox relay
// recovers operations that were never enqueued, and a worker killed with SIGKILL in the middle of a batch
// loses nothing and pays nothing twice. The ledger check runs after every scenario.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../src/testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../src/testing/service-process.js';
import { createDeposit, getAvailableBalance, getOperation } from '../generated/openapi/sdk.gen.js';
import { createTestPrivy, type TestPrivy } from '../src/testing/identity.js';
import { ledgerProblems, newUserSession } from '../src/testing/money.js';
import { sdkClient, sent } from '../src/testing/sdk-client.js';

let db: TestDatabase;
let api: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;
let env: Record<string, string>;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase('settle');
  privy = await createTestPrivy();
  env = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniquePrefix('settle'),
    RATE_LIMIT_PER_MINUTE: '0',
    ...privy.env,
  };
  // The API alone: nothing in this process settles.
  api = await startServiceProcess({ env: { ...env, DEPOSIT_SYNC_WAIT_MS: '300' }, args: ['--role=api'] });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});

afterEach(async () => {
  expect(await ledgerProblems(sql)).toEqual([]);
});

afterAll(async () => {
  for (const p of running) await p.stop('SIGKILL');
  await sql?.end();
  await api?.stop();
  await db?.drop();
});

const startWorker = async () => {
  const w = await startServiceProcess({ env, args: ['--role=workers'], readyWhen: (l) => l.msg === 'workers started' });
  running.push(w);
  return w;
};
const pendingCount = async () => Number((await sql.query(`select count(*)::int as n from operations where status = 'pending'`)).rows[0].n);

describe('only workers settle', () => {
  it('with the workers stopped a deposit answers 202 and stays pending; a worker started later settles it', async () => {
    const u = await newUserSession(api.baseUrl, privy);
    const client = sdkClient(api.baseUrl, u.token);
    const key = randomUUID();
    const deposit = () => sent(createDeposit({ client, body: { amount_micros: 4200, idempotency_key: key } }));
    const res = await deposit();
    expect(res.status).toBe(202);
    const operationId = res.data!.operation_id;
    expect(res.data).toEqual({ operation_id: operationId, status: 'pending' });
    await new Promise((r) => setTimeout(r, 1000));
    const op = await sent(getOperation({ client, path: { operation_id: operationId } }));
    expect(op.data).toMatchObject({ status: 'pending', tx_hash: null, failure_code: null });
    const available = async () => (await sent(getAvailableBalance({ client }))).data?.available_micros;
    expect(await available()).toBe('0');

    // An operation committed with its outbox row but never enqueued (the API died in between): the relay finds it.
    const orphan = randomUUID();
    await sql.query(`insert into operations (id, user_id, kind, amount) values ($1, $2, 'deposit', 58)`, [orphan, u.userId]);
    await sql.query(`insert into operation_outbox (operation_id, created_at) values ($1, now() - interval '1 minute')`, [orphan]);

    const worker = await startWorker();
    const poll = async (id: string) => (await sent(getOperation({ client, path: { operation_id: id } }))).data?.status;
    await expect.poll(() => poll(operationId), { timeout: 30_000, interval: 200 }).toBe('success');
    await expect.poll(() => poll(orphan), { timeout: 30_000, interval: 200 }).toBe('success');
    expect(await available()).toBe('4258');
    // A replay answers from the operation's current state (settled now: 200), marked as a replay.
    const replay = await deposit();
    expect(replay.status).toBe(200);
    expect(replay.data).toEqual({ amount_micros: '4200', operation_id: operationId, tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(Number((await sql.query('select count(*)::int as n from operation_outbox')).rows[0].n)).toBe(0);
    expect(await worker.stop('SIGTERM')).toBe(0);
  });
});

describe('crash safety', () => {
  it('a worker killed with SIGKILL mid-batch: after a restart every deposit is settled exactly once', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => newUserSession(api.baseUrl, privy)));
    const PER_USER = 150;
    const ids: string[] = [];
    for (let i = 0; i < PER_USER; i += 10) {
      const batch = await Promise.all(
        users.flatMap((u) =>
          Array.from({ length: 10 }, () =>
            sent(createDeposit({ client: sdkClient(api.baseUrl, u.token), body: { amount_micros: 3, idempotency_key: randomUUID() } })),
          ),
        ),
      );
      for (const r of batch) {
        expect(r.status).toBe(202);
        ids.push(r.data!.operation_id);
      }
    }
    const total = ids.length;
    expect(await pendingCount()).toBe(total);

    const first = await startWorker();
    await expect.poll(pendingCount, { timeout: 30_000, interval: 5 }).toBeLessThanOrEqual(total - 50);
    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
    const leftAtKill = await pendingCount();
    expect(leftAtKill, 'the worker finished the whole batch before it was killed: enlarge the batch').toBeGreaterThan(0);

    await startWorker();
    await expect.poll(pendingCount, { timeout: 60_000, interval: 250 }).toBe(0);
    const statuses = await sql.query(`select status, count(*)::int as n from operations where id = any($1::uuid[]) group by status`, [ids]);
    expect(statuses.rows).toEqual([{ status: 'success', n: total }]);
    // Exactly one deposit posting per operation.
    const postings = await sql.query(
      `select reference, count(*)::int as n from ledger_transactions where kind = 'deposit' and reference = any($1::text[]) group by reference`,
      [ids],
    );
    expect(postings.rows).toHaveLength(total);
    expect(postings.rows.every((r: { n: number }) => r.n === 1)).toBe(true);
    for (const u of users) {
      const b = await sent(getAvailableBalance({ client: sdkClient(api.baseUrl, u.token) }));
      expect(b.data?.available_micros).toBe(String(3 * PER_USER));
    }
    console.log(`crash test: ${total} deposits, ${leftAtKill} still pending when the worker was killed`);
  }, 150_000);
});
