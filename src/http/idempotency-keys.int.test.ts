// Idempotency keys over time, against the real service (PostgreSQL + Redis): an in-progress key left by an
// earlier version's two-phase claim is 409 until pruning deletes it, and the retry then writes once, even
// when the dead request's write had committed; pruning deletes only keys whose request can no longer
// change, and a retry after a key was pruned still writes nothing twice (the write's own unique key);
// concurrent duplicates wait for the first request and replay it, or get 409 after 5 s.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../db/orm.js';
import { fingerprint, pruneIdempotencyKeys } from '../domain/idempotency.js';
import { createDeposit, createWithdrawal, getAvailableBalance } from '../../generated/openapi/sdk.gen.js';
import type { TestPrivy } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { ledgerProblems, newUserSession } from '../testing/money.js';
import type { ServiceProcess } from '../testing/service-process.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let t: TestService;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;
let orm: Orm;

beforeAll(async () => {
  t = await startTestService('idemkeys');
  ({ svc, privy, sql } = t);
  orm = await createOrm({ databaseUrl: t.db.url });
});

afterEach(async () => {
  expect(await ledgerProblems(sql)).toEqual([]);
});

afterAll(async () => {
  // Bounded: a pool that does not drain must not hold the whole file (the hook timed out once in CI).
  await Promise.race([orm?.close(true), new Promise((r) => setTimeout(r, 10_000).unref())]);
  await t?.stop();
});

const count = async (table: string, where: string, params: unknown[]) =>
  Number((await sql.query(`select count(*)::int as n from ${table} where ${where}`, params)).rows[0].n);
const available = async (token: string) =>
  (await send(getAvailableBalance({ client: sdkClient(svc.baseUrl, token) }))).data?.available_micros;
const depositBody = (amount: number, key: string) => ({ amount_micros: amount, idempotency_key: key });
const deposit = (token: string, amount: number, key: string) =>
  send(createDeposit({ client: sdkClient(svc.baseUrl, token), body: depositBody(amount, key) }));

/** A key as an earlier version's two-phase request that died left it: committed in progress. */
async function strandedKey(userId: string, key: string, body: unknown, createdAgo = '1 minute') {
  await sql.query(
    `insert into idempotency_keys (scope, operation, key, fingerprint, state, lease_expires_at, created_at)
     values ($1, 'createDeposit', $2, $3, 'in_progress', now() - interval '1 second', now() - $4::interval)`,
    [`user:${userId}`, key, fingerprint(body), createdAgo],
  );
}

describe('an in-progress key left by an earlier version', () => {
  it('is 409 (never taken over) until pruning deletes it; the retry then writes once, also when the dead request had committed', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const [lost, committed] = [randomUUID(), randomUUID()];
    await strandedKey(u.userId, lost, depositBody(300, lost));
    await strandedKey(u.userId, committed, depositBody(400, committed));
    // What the second dead request had committed: the operation with its key, and its outbox row (never enqueued).
    const opId = randomUUID();
    await sql.query(`insert into operations (id, user_id, kind, amount, idempotency_key) values ($1, $2, 'deposit', 400, $3)`, [
      opId,
      u.userId,
      committed,
    ]);
    await sql.query('insert into operation_outbox (operation_id) values ($1)', [opId]);
    for (const [key, amount] of [
      [lost, 300],
      [committed, 400],
    ] as const) {
      const blocked = await deposit(u.token, amount, key);
      expect(blocked.status).toBe(409);
      expect(blocked.error?.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
    }

    await sql.query(`update idempotency_keys set created_at = now() - interval '2 days' where key = any($1::uuid[])`, [[lost, committed]]);
    expect(await pruneIdempotencyKeys(orm.em.fork())).toBeGreaterThanOrEqual(2);
    expect(await count('idempotency_keys', 'key = any($1::uuid[])', [[lost, committed]])).toBe(0);

    const first = await deposit(u.token, 300, lost);
    expect(first.status).toBe(200);
    const again = await deposit(u.token, 400, committed);
    expect(again.status).toBe(200);
    expect(again.data?.operation_id).toBe(opId); // found by the operation's own unique key, not written twice
    expect(await count('operations', 'user_id = $1', [u.userId])).toBe(2);
    const replay = await deposit(u.token, 300, lost);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(first.data);
    expect(await available(u.token)).toBe('700');
    // The database itself refuses a second operation under the same key.
    await expect(
      sql.query(`insert into operations (id, user_id, kind, amount, idempotency_key) values ($1, $2, 'deposit', 400, $3)`, [
        randomUUID(),
        u.userId,
        committed,
      ]),
    ).rejects.toThrow(/operations_idempotency_key/);
  });
});

describe('pruning', () => {
  it('never deletes a key whose request could still change; a retry after pruning writes nothing twice', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const old = `now() - interval '2 days'`;
    // Settled deposit (done, final): prunable once old.
    const settledKey = randomUUID();
    const settled = await deposit(u.token, 10, settledKey);
    expect(settled.status).toBe(200);
    // A stored rejection (done, no resource): prunable once old.
    const rejectedKey = randomUUID();
    const rejected = await send(
      createWithdrawal({
        client: sdkClient(svc.baseUrl, u.token),
        body: { amount_micros: 1_000_000, destination_address: `0x${'1'.repeat(40)}`, idempotency_key: rejectedKey },
      }),
    );
    expect(rejected.status).toBe(422);
    // A done key whose operation is still pending (no outbox row, so nothing settles it here): kept.
    const pendingKey = randomUUID();
    const pendingOp = randomUUID();
    await sql.query(`insert into operations (id, user_id, kind, amount, idempotency_key) values ($1, $2, 'deposit', 5, $3)`, [
      pendingOp,
      u.userId,
      pendingKey,
    ]);
    await sql.query(
      `insert into idempotency_keys (scope, operation, key, fingerprint, state, response_status, response_body, resource_id, completed_at)
       values ($1, 'createDeposit', $2, $3, 'done', 202, $4, $5, now())`,
      [
        `user:${u.userId}`,
        pendingKey,
        fingerprint(depositBody(5, pendingKey)),
        JSON.stringify({ operation_id: pendingOp, status: 'pending' }),
        pendingOp,
      ],
    );
    // An in-progress key left by an earlier version: pruned once old.
    const strandedKeyId = randomUUID();
    await strandedKey(u.userId, strandedKeyId, depositBody(7, strandedKeyId), '2 days');
    // A fresh settled key: kept.
    const freshKey = randomUUID();
    expect((await deposit(u.token, 20, freshKey)).status).toBe(200);
    await sql.query(`update idempotency_keys set created_at = ${old} where key = any($1::uuid[])`, [[settledKey, rejectedKey, pendingKey]]);

    expect(await pruneIdempotencyKeys(orm.em.fork())).toBe(3);
    const left = (await sql.query('select key::text as key from idempotency_keys where scope = $1', [`user:${u.userId}`])).rows
      .map((r) => r.key)
      .sort();
    expect(left).toEqual([pendingKey, freshKey].sort());

    // The pruned settled deposit, retried: its operation is found by its own unique key, not written again.
    const retry = await deposit(u.token, 10, settledKey);
    expect(retry.status).toBe(200);
    expect(retry.data).toEqual(settled.data);
    expect(await count('operations', `user_id = $1 and idempotency_key = $2`, [u.userId, settledKey])).toBe(1);
    expect(await available(u.token)).toBe('30');
  });
});

describe('concurrent duplicates', () => {
  it('wait for the first request and replay it byte for byte: one withdrawal, one credit', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    expect((await deposit(u.token, 1000, randomUUID())).status).toBe(200);
    const key = randomUUID();
    const body = { amount_micros: 100, destination_address: `0x${'2'.repeat(40)}`, idempotency_key: key };
    const sendRaw = (route: string, b: unknown, token: string) =>
      fetch(`${svc.baseUrl}${route}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(b),
      }).then(async (r) => ({ status: r.status, text: await r.text(), replayed: r.headers.get('idempotent-replayed') }));
    const withdrawals = await Promise.all(Array.from({ length: 10 }, () => sendRaw('/v1/users/withdraw', body, u.token)));
    expect(withdrawals.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(withdrawals.filter((r) => r.replayed === null)).toHaveLength(1);
    expect(new Set(withdrawals.map((r) => r.text)).size).toBe(1);
    expect(await count('operations', `user_id = $1 and kind = 'withdraw'`, [u.userId])).toBe(1);
    expect(await available(u.token)).toBe('900');

    const credit = { amount_micros: 25, idempotency_key: key };
    const credits = await Promise.all(
      Array.from({ length: 10 }, () => sendRaw(`/v1/admin/users/${u.userId}/app-token-credits`, credit, t.operatorToken)),
    );
    expect(credits.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(credits.filter((r) => r.replayed === null)).toHaveLength(1);
    expect(new Set(credits.map((r) => r.text)).size).toBe(1);
    expect(JSON.parse(credits[0]!.text).available_app_token_micros).toBe('25');
  });

  it('a duplicate waits at most 5 s for a first request that holds the key, then 409; after that one rolls back, the retry runs', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const key = randomUUID();
    const holder = new pg.Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      // A first request mid-transaction: its key row inserted, not committed.
      await holder.query('begin');
      await holder.query(
        `insert into idempotency_keys (scope, operation, key, fingerprint, state, lease_expires_at) values ($1, 'createDeposit', $2, $3, 'in_progress', now() + interval '1 minute')`,
        [`user:${u.userId}`, key, fingerprint(depositBody(60, key))],
      );
      const t0 = Date.now();
      const waited = await deposit(u.token, 60, key);
      const ms = Date.now() - t0;
      expect(waited.status).toBe(409);
      expect(waited.error?.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
      expect(ms).toBeGreaterThanOrEqual(4500);
      expect(ms).toBeLessThan(15_000);
      await holder.query('rollback');
    } finally {
      await holder.end();
    }
    const retry = await deposit(u.token, 60, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('operations', 'user_id = $1', [u.userId])).toBe(1);
  });
});
