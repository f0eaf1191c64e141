// Money writes' idempotency over HTTP against the real service (src/testing/money-service.ts): concurrent
// identical requests, replays (errors too), reused keys and bad input; the operator's app-token credits; and
// the database refusing what would break the money rules even from bad code. The ledger check runs after
// every scenario.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDeposit, creditAppTokens, getAvailableBalance } from '../../generated/openapi/sdk.gen.js';
import { randomWallet } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { newUserSession } from '../testing/money.js';
import { balances, count, deposit, OPERATOR_TOKEN, privy, sql, svc, useMoneyService, withdraw } from '../testing/money-service.js';

useMoneyService('moneyidem');

describe('idempotency', () => {
  it('20 concurrent identical deposits with one key credit once; the rest replay or are 409 in progress', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => deposit(u.token, 777, key)));
    const firsts = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    expect(firsts).toHaveLength(1);
    for (const r of results) {
      if (r.status === 409) expect(r.error?.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
      else {
        expect(r.status).toBe(200);
        expect(r.data).toEqual(firsts[0]!.data);
      }
    }
    expect(await count('operations', 'user_id = $1', [u.userId])).toBe(1);
    expect((await balances(u.token)).available).toBe('777');
    const again = await deposit(u.token, 777, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(firsts[0]!.data);
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
    expect(replay.error).toEqual(refused.error);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const otherDest = await withdraw(u.token, 50, randomWallet().address, key);
    expect(otherDest.status).toBe(409);
    expect(otherDest.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const dkey = randomUUID();
    expect((await deposit(u.token, 5, dkey)).status).toBe(200);
    const reused = await deposit(u.token, 6, dkey);
    expect(reused.status).toBe(409);
    expect(reused.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
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
    // Raw requests: these bodies break the spec's types (wrong types, missing or extra properties), which the SDK will not take.
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${svc.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${u.token}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { code?: string; details?: unknown } };
    };
    for (const [name, body] of cases) {
      const res = await post('/v1/users/deposit', body);
      expect(res.status, name).toBe(400);
      expect(res.body.code, name).toBe('VALIDATION_FAILED');
      expect(Array.isArray(res.body.details) && res.body.details.length > 0, name).toBe(true);
      const w = await post('/v1/users/withdraw', { ...body, destination_address: dest });
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
      expect(res.error?.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.error?.details)).toContain('/destination_address');
    }
    const noBearer = await send(createDeposit({ client: sdkClient(svc.baseUrl), body: { amount_micros: 100, idempotency_key: key } }));
    expect(noBearer.status).toBe(401);
    expect(noBearer.error?.code).toBe('UNAUTHORIZED');
    expect((await send(getAvailableBalance({ client: sdkClient(svc.baseUrl) }))).status).toBe(401);
    expect({ ops: await count('operations'), keys: await count('idempotency_keys'), entries: await count('ledger_entries') }).toEqual(
      before,
    );
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
    const credit = (amount: number, idempotencyKey: string, token = OPERATOR_TOKEN, userId = u.userId) =>
      send(
        creditAppTokens({
          client: sdkClient(svc.baseUrl, token),
          path: { user_id: userId },
          body: { amount_micros: amount, idempotency_key: idempotencyKey },
        }),
      );
    const first = await credit(5000, key);
    expect(first.status).toBe(200);
    expect(first.data).toEqual({ user_id: u.userId, amount_micros: '5000', available_app_token_micros: '5000' });
    const replay = await credit(5000, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(first.data);
    const second = await credit(1, randomUUID());
    expect(second.data?.available_app_token_micros).toBe('5001');
    expect((await credit(2, key)).error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await balances(u.token)).appToken).toBe('5001');
    const missing = await credit(1, randomUUID(), OPERATOR_TOKEN, randomUUID());
    expect(missing.status).toBe(404);
    expect(missing.error?.code).toBe('USER_NOT_FOUND');
    expect((await credit(1, randomUUID(), u.token)).status).toBe(403);
  });
});

describe('the database keeps the money rules even against bad code', () => {
  it('refuses a negative user balance, an unbalanced transaction, and any change to entries', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    await deposit(u.token, 10);
    await expect(
      sql.query(`update ledger_accounts set balance = -1 where user_id = $1 and kind = 'user_available'`, [u.userId]),
    ).rejects.toThrow(/check/);
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
