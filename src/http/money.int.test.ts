// Balances, deposits, withdrawals and idempotency over HTTP against the real service (PostgreSQL + Redis,
// API and workers in one process). The ledger check runs after every scenario.
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../testing/service-process.js';
import { call, randomWallet, type TestPrivy } from '../testing/identity.js';
import { ledgerProblems, newUserSession } from '../testing/money.js';
import { startTestService, type TestService } from '../testing/test-service.js';

const DEMO_LIMIT = 1_000_000;
let OPERATOR_TOKEN: string;
let t: TestService;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;

beforeAll(async () => {
  t = await startTestService('money', { DEMO_ONCHAIN_BALANCE_MICROS: String(DEMO_LIMIT) });
  ({ svc, privy, sql, operatorToken: OPERATOR_TOKEN } = t);
});

afterEach(async () => {
  expect(await ledgerProblems(sql)).toEqual([]);
});

afterAll(async () => {
  await t?.stop();
});

const count = async (table: string, where = 'true', params: unknown[] = []) =>
  Number((await sql.query(`select count(*)::int as n from ${table} where ${where}`, params)).rows[0].n);

async function balances(token: string) {
  const [a, r, t] = await Promise.all([
    call(svc.baseUrl, 'GET /v1/user/available_balance', { token }),
    call(svc.baseUrl, 'GET /v1/user/reserved_balance', { token }),
    call(svc.baseUrl, 'GET /v1/user/available_app_token_balance', { token }),
  ]);
  return { available: a.body.available_micros, reserved: r.body.reserved_micros, appToken: t.body.available_app_token_micros };
}

const deposit = (token: string, amount: unknown, key: string = randomUUID()) =>
  call(svc.baseUrl, 'POST /v1/users/deposit', { token, body: { amount_micros: amount, idempotency_key: key } });
const withdraw = (token: string, amount: unknown, destination: string, key: string = randomUUID()) =>
  call(svc.baseUrl, 'POST /v1/users/withdraw', { token, body: { amount_micros: amount, destination_address: destination, idempotency_key: key } });

describe('deposit and balances', () => {
  it('a new user has zero balances; a deposit settles within the wait, credits available, and reports its operation', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    expect(await balances(u.token)).toEqual({ available: '0', reserved: '0', appToken: '0' });
    const res = await deposit(u.token, 250_000);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['amount_micros', 'operation_id', 'tx_hash']);
    expect(res.body.amount_micros).toBe('250000');
    expect(res.body.tx_hash).toBe(`0x${createHash('sha256').update(res.body.operation_id).digest('hex')}`);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(await balances(u.token)).toEqual({ available: '250000', reserved: '0', appToken: '0' });
    const op = await call(svc.baseUrl, `GET /v1/users/operations/${res.body.operation_id}`, { token: u.token });
    expect(op.status).toBe(200);
    expect(op.body).toMatchObject({
      operation_id: res.body.operation_id,
      kind: 'deposit',
      status: 'success',
      amount_micros: '250000',
      tx_hash: res.body.tx_hash,
      failure_code: null,
    });
    expect(Math.abs(op.body.created_at_ms - Date.now())).toBeLessThan(60_000);
    const other = await newUserSession(svc.baseUrl, privy);
    const foreign = await call(svc.baseUrl, `GET /v1/users/operations/${res.body.operation_id}`, { token: other.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('OPERATION_NOT_FOUND');
  });

  it('a deposit beyond the demo onchain balance is 422 SETTLEMENT_FAILED and credits nothing', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    expect((await deposit(u.token, DEMO_LIMIT - 10)).status).toBe(200);
    const res = await deposit(u.token, 11);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('SETTLEMENT_FAILED');
    expect(res.body.details.operation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await balances(u.token)).available).toBe(String(DEMO_LIMIT - 10));
    const op = await call(svc.baseUrl, `GET /v1/users/operations/${res.body.details.operation_id}`, { token: u.token });
    expect(op.body).toMatchObject({ status: 'failed', failure_code: 'SETTLEMENT_FAILED', tx_hash: null });
    expect((await deposit(u.token, 10)).status).toBe(200); // exactly what is left still settles
  });

  it('concurrent deposits of several users (settled by the worker in shared batches) are each credited once, within each demo balance', async () => {
    const [u, v, w] = await Promise.all([1, 2, 3].map(() => newUserSession(svc.baseUrl, privy)));
    // u asks for 15 x 100,000 against a demo balance of 1,000,000: exactly 10 fit, whatever batch each lands in.
    const amount = DEMO_LIMIT / 10;
    const results = await Promise.all([
      ...Array.from({ length: 15 }, () => deposit(u!.token, amount)),
      ...Array.from({ length: 10 }, () => deposit(v!.token, 7)),
      ...Array.from({ length: 10 }, () => withdraw(w!.token, 1, randomWallet().address)), // nothing to withdraw: 422 at once
    ]);
    // Answered once settled (a 202 only if settlement outlasted DEPOSIT_SYNC_WAIT_MS on a loaded machine).
    for (const r of results.slice(0, 25)) expect([200, 202, 422]).toContain(r.status);
    for (const r of results.slice(0, 25).filter((x) => x.status === 422)) expect(r.body.code).toBe('SETTLEMENT_FAILED');
    expect(results.slice(25).map((r) => r.body.code)).toEqual(Array(10).fill('INSUFFICIENT_BALANCE'));
    await expect.poll(() => count('operations', `user_id = any($1) and status = 'pending'`, [[u!.userId, v!.userId]]), { timeout: 30_000 }).toBe(0);
    expect(await count('operations', `user_id = $1 and status = 'success'`, [u!.userId])).toBe(10);
    expect(await count('operations', `user_id = $1 and status = 'failed'`, [u!.userId])).toBe(5);
    expect(await count('operations', `user_id = $1 and status = 'success'`, [v!.userId])).toBe(10);
    expect((await balances(u!.token)).available).toBe(String(DEMO_LIMIT));
    expect((await balances(v!.token)).available).toBe('70');
    expect(await count('operation_outbox o join operations p on p.id = o.operation_id', 'p.user_id = any($1)', [[u!.userId, v!.userId]])).toBe(0);
  });

  it('getDepositWallet is a deterministic checksummed demo address per user', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const a = await call(svc.baseUrl, 'GET /v1/users/deposit-wallet', { token: u.token });
    const b = await call(svc.baseUrl, 'GET /v1/users/deposit-wallet', { token: u.token });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(a.body).toMatchObject({ asset: 'USDC', mode: 'demo', chain_id: 84532 });
    const other = await newUserSession(svc.baseUrl, privy);
    expect((await call(svc.baseUrl, 'GET /v1/users/deposit-wallet', { token: other.token })).body.address).not.toBe(a.body.address);
  });
});

describe('withdraw', () => {
  it('reserves, settles, and leaves reserved; the response echoes the destination', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    await deposit(u.token, 1000);
    const dest = randomWallet().address;
    const res = await withdraw(u.token, 400, dest);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ amount_micros: '400', destination_address: dest });
    expect(res.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balances(u.token)).toEqual({ available: '600', reserved: '0', appToken: '0' });
  });

  it('20 concurrent withdrawals of 100 against 500: exactly 5 succeed, 15 are 422 INSUFFICIENT_BALANCE', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    expect((await deposit(u.token, 500)).status).toBe(200);
    const dest = randomWallet().address;
    const results = await Promise.all(Array.from({ length: 20 }, () => withdraw(u.token, 100, dest)));
    const ok = results.filter((r) => r.status === 200 || r.status === 202);
    const refused = results.filter((r) => r.status === 422);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) expect(r.body.code).toBe('INSUFFICIENT_BALANCE');
    await expect.poll(async () => (await balances(u.token)).reserved, { timeout: 30_000 }).toBe('0');
    expect((await balances(u.token)).available).toBe('0');
    expect(await count('operations', `user_id = $1 and kind = 'withdraw'`, [u.userId])).toBe(5);
  });

  it('a withdrawal that settlement rejects (the zero address) is 422 SETTLEMENT_FAILED and refunds reserved to available', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    await deposit(u.token, 1000);
    const res = await withdraw(u.token, 300, '0x0000000000000000000000000000000000000000');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('SETTLEMENT_FAILED');
    expect(await balances(u.token)).toEqual({ available: '1000', reserved: '0', appToken: '0' });
    const op = await call(svc.baseUrl, `GET /v1/users/operations/${res.body.details.operation_id}`, { token: u.token });
    expect(op.body).toMatchObject({ kind: 'withdraw', status: 'failed', failure_code: 'SETTLEMENT_FAILED', tx_hash: null });
  });

  it('an amount above available is 422 INSUFFICIENT_BALANCE with nothing written', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const res = await withdraw(u.token, 1, randomWallet().address);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await count('operations', 'user_id = $1', [u.userId])).toBe(0);
  });
});

describe('idempotency', () => {
  it('20 concurrent identical deposits with one key credit once; the rest replay or are 409 in progress', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => deposit(u.token, 777, key)));
    const firsts = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    expect(firsts).toHaveLength(1);
    for (const r of results) {
      if (r.status === 409) expect(r.body.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
      else {
        expect(r.status).toBe(200);
        expect(r.body).toEqual(firsts[0]!.body);
      }
    }
    expect(await count('operations', 'user_id = $1', [u.userId])).toBe(1);
    expect((await balances(u.token)).available).toBe('777');
    const again = await deposit(u.token, 777, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(firsts[0]!.body);
  });

  it('replays the first status and body (errors too); a different body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const key = randomUUID();
    const dest = randomWallet().address;
    const refused = await withdraw(u.token, 50, dest, key);
    expect(refused.status).toBe(422);
    await deposit(u.token, 100);
    // Same key and body: the stored 422, not a new attempt, even though the balance now suffices.
    const replay = await withdraw(u.token, 50, dest, key);
    expect(replay.status).toBe(422);
    expect(replay.body).toEqual(refused.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const otherDest = await withdraw(u.token, 50, randomWallet().address, key);
    expect(otherDest.status).toBe(409);
    expect(otherDest.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const dkey = randomUUID();
    expect((await deposit(u.token, 5, dkey)).status).toBe(200);
    const reused = await deposit(u.token, 6, dkey);
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // The key is scoped per user: another user's request with the same key is a new request.
    const v = await newUserSession(svc.baseUrl, privy);
    const theirs = await deposit(v.token, 6, dkey);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await balances(u.token)).toMatchObject({ available: '105', reserved: '0' });
  });

  it('bad input is 400 or 401 and writes nothing', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const dest = randomWallet().address;
    const before = { ops: await count('operations'), keys: await count('idempotency_keys'), entries: await count('ledger_entries') };
    const key = randomUUID();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['zero', { amount_micros: 0, idempotency_key: key }],
      ['negative', { amount_micros: -5, idempotency_key: key }],
      ['fractional', { amount_micros: 1.5, idempotency_key: key }],
      ['string', { amount_micros: '100', idempotency_key: key }],
      ['beyond 2^53-1', { amount_micros: 9007199254740992, idempotency_key: key }],
      ['beyond int64', { amount_micros: 1e20, idempotency_key: key }],
      ['missing key', { amount_micros: 100 }],
      ['malformed key', { amount_micros: 100, idempotency_key: 'not-a-uuid' }],
      ['unknown property', { amount_micros: 100, idempotency_key: key, memo: 'x' }],
    ];
    for (const [name, body] of cases) {
      const res = await call(svc.baseUrl, 'POST /v1/users/deposit', { token: u.token, body });
      expect(res.status, name).toBe(400);
      expect(res.body.code, name).toBe('VALIDATION_FAILED');
      expect(Array.isArray(res.body.details) && res.body.details.length > 0, name).toBe(true);
      const w = await call(svc.baseUrl, 'POST /v1/users/withdraw', { token: u.token, body: { ...body, destination_address: dest } });
      expect(w.status, `withdraw ${name}`).toBe(400);
    }
    // The checksummed address with the case of one letter flipped: still hex, still mixed case (so the
    // checksum applies: an all-lowercase or all-uppercase result would be a valid unchecksummed form), no longer EIP-55.
    const flipAt = (i: number) => {
      const c = dest[i]!;
      return dest.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + dest.slice(i + 1);
    };
    const badChecksum = [...dest]
      .map((_, i) => i)
      .filter((i) => i >= 2 && /[a-fA-F]/.test(dest[i]!))
      .map(flipAt)
      .find((a) => /[a-f]/.test(a.slice(2)) && /[A-F]/.test(a.slice(2)));
    if (!badChecksum) throw new Error(`no mixed-case flip of ${dest}`);
    for (const destination of [badChecksum, '0x1234', 'vitalik.eth', `${dest}00`]) {
      const res = await withdraw(u.token, 10, destination, key);
      expect(res.status, destination).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.details)).toContain('/destination_address');
    }
    const noBearer = await call(svc.baseUrl, 'POST /v1/users/deposit', { body: { amount_micros: 100, idempotency_key: key } });
    expect(noBearer.status).toBe(401);
    expect(noBearer.body.code).toBe('UNAUTHORIZED');
    expect((await call(svc.baseUrl, 'GET /v1/user/available_balance')).status).toBe(401);
    expect({ ops: await count('operations'), keys: await count('idempotency_keys'), entries: await count('ledger_entries') }).toEqual(before);
    // All-lowercase and checksummed addresses are both accepted.
    await deposit(u.token, 20);
    expect((await withdraw(u.token, 10, dest.toLowerCase())).status).toBe(200);
    expect((await withdraw(u.token, 10, dest)).status).toBe(200);
  });
});

describe('creditAppTokens (operator)', () => {
  it('credits from the treasury, replays by key, 404 for an unknown user, 403 for a user token', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const key = randomUUID();
    const path = `POST /v1/admin/users/${u.userId}/app-token-credits`;
    const first = await call(svc.baseUrl, path, { token: OPERATOR_TOKEN, body: { amount_micros: 5000, idempotency_key: key } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ user_id: u.userId, amount_micros: '5000', available_app_token_micros: '5000' });
    const replay = await call(svc.baseUrl, path, { token: OPERATOR_TOKEN, body: { amount_micros: 5000, idempotency_key: key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const second = await call(svc.baseUrl, path, { token: OPERATOR_TOKEN, body: { amount_micros: 1, idempotency_key: randomUUID() } });
    expect(second.body.available_app_token_micros).toBe('5001');
    expect((await call(svc.baseUrl, path, { token: OPERATOR_TOKEN, body: { amount_micros: 2, idempotency_key: key } })).body.code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect((await balances(u.token)).appToken).toBe('5001');
    const missing = await call(svc.baseUrl, `POST /v1/admin/users/${randomUUID()}/app-token-credits`, {
      token: OPERATOR_TOKEN,
      body: { amount_micros: 1, idempotency_key: randomUUID() },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('USER_NOT_FOUND');
    expect((await call(svc.baseUrl, path, { token: u.token, body: { amount_micros: 1, idempotency_key: randomUUID() } })).status).toBe(403);
  });
});

describe('the database keeps the money rules even against bad code', () => {
  it('refuses a negative user balance, an unbalanced transaction, and any change to entries', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    await deposit(u.token, 10);
    await expect(sql.query(`update ledger_accounts set balance = -1 where user_id = $1 and kind = 'user_available'`, [u.userId])).rejects.toThrow(
      /check/,
    );
    await expect(sql.query('update ledger_entries set amount = amount + 1')).rejects.toThrow(/append-only/);
    await expect(sql.query('delete from ledger_entries')).rejects.toThrow(/append-only/);
    await sql.query('begin');
    try {
      const tx = randomUUID();
      await sql.query(`insert into ledger_transactions (id, kind, reference) values ($1, 'bogus', 'test')`, [tx]);
      await sql.query(
        `insert into ledger_entries (transaction_id, account_id, amount) select $1, id, 5 from ledger_accounts where kind = 'treasury'`,
        [tx],
      );
      await expect(sql.query('commit')).rejects.toThrow(/does not sum to zero/);
    } finally {
      await sql.query('rollback').catch(() => undefined);
    }
  });
});
