// Balances, deposits and withdrawals over HTTP against the real service (src/testing/money-service.ts).
// Idempotency, the operator's app-token credits and the database's own money rules:
// money-idempotency.int.test.ts. The ledger check runs after every scenario.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getDepositWallet, getOperation } from '../../generated/openapi/sdk.gen.js';
import type { DepositResponse, WithdrawResponse } from '../../generated/openapi/types.gen.js';
import { DEMO_FAILING_DESTINATION } from '../domain/settlement/demo.js';
import { randomWallet } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { newUserSession } from '../testing/money.js';
import { balances, count, DEMO_LIMIT, deposit, privy, svc, useMoneyService, withdraw } from '../testing/money-service.js';

useMoneyService('money');

const operation = (token: string, id: string) => send(getOperation({ client: sdkClient(svc.baseUrl, token), path: { operation_id: id } }));
const depositWallet = (token: string) => send(getDepositWallet({ client: sdkClient(svc.baseUrl, token) }));
/** The operation a SETTLEMENT_FAILED error names in its details. */
const operationIdOf = (error: { details: unknown } | undefined) => (error?.details as { operation_id: string }).operation_id;

describe('deposit and balances', () => {
  it('a new user has zero balances; a deposit settles within the wait, credits available, and reports its operation', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    expect(await balances(u.token)).toEqual({ available: '0', reserved: '0', appToken: '0' });
    const res = await deposit(u.token, 250_000);
    expect(res.status).toBe(200);
    const settled = res.data as DepositResponse; // a 200 is the settled deposit (a 202 would be OperationPending)
    expect(Object.keys(settled).sort()).toEqual(['amount_micros', 'operation_id', 'tx_hash']);
    expect(settled.amount_micros).toBe('250000');
    expect(settled.tx_hash).toBe(`0x${createHash('sha256').update(settled.operation_id).digest('hex')}`);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(await balances(u.token)).toEqual({ available: '250000', reserved: '0', appToken: '0' });
    const op = await operation(u.token, res.data!.operation_id);
    expect(op.status).toBe(200);
    expect(op.data).toMatchObject({
      operation_id: res.data?.operation_id,
      kind: 'deposit',
      status: 'success',
      amount_micros: '250000',
      tx_hash: settled.tx_hash,
      failure_code: null,
    });
    expect(Math.abs(op.data!.created_at_ms - Date.now())).toBeLessThan(60_000);
    const other = await newUserSession(svc.baseUrl, privy);
    const foreign = await operation(other.token, res.data!.operation_id);
    expect(foreign.status).toBe(404);
    expect(foreign.error?.code).toBe('OPERATION_NOT_FOUND');
  });

  it('a deposit beyond the demo onchain balance is 422 SETTLEMENT_FAILED and credits nothing', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    expect((await deposit(u.token, DEMO_LIMIT - 10)).status).toBe(200);
    const res = await deposit(u.token, 11);
    expect(res.status).toBe(422);
    expect(res.error?.code).toBe('SETTLEMENT_FAILED');
    expect(operationIdOf(res.error)).toMatch(/^[0-9a-f-]{36}$/);
    expect((await balances(u.token)).available).toBe(String(DEMO_LIMIT - 10));
    const op = await operation(u.token, operationIdOf(res.error));
    expect(op.data).toMatchObject({ status: 'failed', failure_code: 'SETTLEMENT_FAILED', tx_hash: null });
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
    for (const r of results.slice(0, 25).filter((x) => x.status === 422)) expect(r.error?.code).toBe('SETTLEMENT_FAILED');
    expect(results.slice(25).map((r) => r.error?.code)).toEqual(Array(10).fill('INSUFFICIENT_BALANCE'));
    await expect
      .poll(() => count('operations', `user_id = any($1) and status = 'pending'`, [[u!.userId, v!.userId]]), { timeout: 30_000 })
      .toBe(0);
    expect(await count('operations', `user_id = $1 and status = 'success'`, [u!.userId])).toBe(10);
    expect(await count('operations', `user_id = $1 and status = 'failed'`, [u!.userId])).toBe(5);
    expect(await count('operations', `user_id = $1 and status = 'success'`, [v!.userId])).toBe(10);
    expect((await balances(u!.token)).available).toBe(String(DEMO_LIMIT));
    expect((await balances(v!.token)).available).toBe('70');
    expect(
      await count('operation_outbox o join operations p on p.id = o.operation_id', 'p.user_id = any($1)', [[u!.userId, v!.userId]]),
    ).toBe(0);
  });

  it('getDepositWallet is a deterministic checksummed demo address per user', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const a = await depositWallet(u.token);
    const b = await depositWallet(u.token);
    expect(a.status).toBe(200);
    expect(a.data).toEqual(b.data);
    expect(a.data).toMatchObject({ asset: 'USDC', mode: 'demo', chain_id: 84532 });
    const other = await newUserSession(svc.baseUrl, privy);
    expect((await depositWallet(other.token)).data?.address).not.toBe(a.data?.address);
  });
});

describe('withdraw', () => {
  it('reserves, settles, and leaves reserved; the response echoes the destination', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    await deposit(u.token, 1000);
    const dest = randomWallet().address;
    const res = await withdraw(u.token, 400, dest);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ amount_micros: '400', destination_address: dest });
    expect((res.data as WithdrawResponse).tx_hash).toMatch(/^0x[0-9a-f]{64}$/); // a 200 is the settled withdrawal
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
    for (const r of refused) expect(r.error?.code).toBe('INSUFFICIENT_BALANCE');
    await expect.poll(async () => (await balances(u.token)).reserved, { timeout: 30_000 }).toBe('0');
    expect((await balances(u.token)).available).toBe('0');
    expect(await count('operations', `user_id = $1 and kind = 'withdraw'`, [u.userId])).toBe(5);
  });

  it('a withdrawal that settlement rejects (DEMO_FAILING_DESTINATION) is 422 SETTLEMENT_FAILED and refunds reserved to available', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    await deposit(u.token, 1000);
    const res = await withdraw(u.token, 300, DEMO_FAILING_DESTINATION);
    expect(res.status).toBe(422);
    expect(res.error?.code).toBe('SETTLEMENT_FAILED');
    expect(await balances(u.token)).toEqual({ available: '1000', reserved: '0', appToken: '0' });
    const op = await operation(u.token, operationIdOf(res.error));
    expect(op.data).toMatchObject({ kind: 'withdraw', status: 'failed', failure_code: 'SETTLEMENT_FAILED', tx_hash: null });
  });

  it('an amount above available is 422 INSUFFICIENT_BALANCE with nothing written', async () => {
    const u = await newUserSession(svc.baseUrl, privy);
    const res = await withdraw(u.token, 1, randomWallet().address);
    expect(res.status).toBe(422);
    expect(res.error?.code).toBe('INSUFFICIENT_BALANCE');
    expect(await count('operations', 'user_id = $1', [u.userId])).toBe(0);
  });
});
