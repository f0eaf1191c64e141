// The custody controls of deposits and withdrawals through the generated client (docs/operations.md, "Custody"):
// the new refusals of createWithdrawal and createDeposit, the fee on the answers and the operation, a withdrawal
// held for review (202 pending_reason review), and the operator's queue and decisions (listAdminWithdrawals,
// approveWithdrawal, rejectWithdrawal: 200, replay, 404, 409), audited in their own transaction
// (contract-tests/audit.test.ts leaves these two writes to this file). Every response is checked against the spec.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approveWithdrawal,
  createDeposit,
  createSession,
  createWithdrawal,
  getDepositWallet,
  getOperation,
  listAdminOperations,
  listAdminWithdrawals,
  listAuditEntries,
  rejectWithdrawal,
} from '../generated/openapi/sdk.gen.ts';
import type { WithdrawalPending, WithdrawResponse } from '../generated/openapi/types.gen.ts';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { startContractService, type ContractClient, type ContractService } from './harness.ts';

const USDC = 1_000_000;
const COLD = randomWallet().address;
let svc: ContractService;
let privy: TestPrivy;
let operator: ContractClient;

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('wcontrols', {
    env: {
      ...privy.env,
      RATE_LIMIT_PER_MINUTE: '0',
      WITHDRAWAL_MIN_MICROS: String(USDC),
      WITHDRAWAL_FEE_MICROS: '100000',
      DEPOSIT_MIN_MICROS: '1000',
      WITHDRAWAL_DAILY_LIMIT_MICROS: String(30 * USDC),
      WITHDRAWAL_REVIEW_ABOVE_MICROS: String(5 * USDC),
      COLD_WALLET_ADDRESS: COLD,
    },
  });
  operator = svc.client({ token: svc.operatorToken });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

async function fundedUser(micros: number): Promise<ContractClient> {
  const anon = svc.client();
  const { data } = await anon.run(
    createSession({
      client: anon.client,
      body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, randomWallet().address) },
    }),
    { status: 200 },
  );
  const api = svc.client({ token: data!.session_token });
  await api.run(createDeposit({ client: api.client, body: { amount_micros: micros, idempotency_key: randomUUID() } }), { status: 200 });
  return api;
}

const withdraw = (api: ContractClient, amount: number, to: string = randomWallet().address, key = randomUUID()) =>
  createWithdrawal({ client: api.client, body: { amount_micros: amount, destination_address: to, idempotency_key: key } });

describe('custody controls', () => {
  it('createWithdrawal 422 DESTINATION_NOT_ALLOWED, WITHDRAWAL_TOO_SMALL, WITHDRAWAL_LIMIT_EXCEEDED; 200 with fee_micros; createDeposit 422 DEPOSIT_TOO_SMALL', async () => {
    const api = await fundedUser(40 * USDC);
    const own = (await api.run(getDepositWallet({ client: api.client }), { status: 200 })).data!.address!;
    for (const [to, rule] of [
      ['0x0000000000000000000000000000000000000000', 'zero_address'],
      [COLD, 'cold_wallet'],
      [own, 'deposit_address'],
    ] as const) {
      const { error } = await api.run(withdraw(api, 2 * USDC, to), { status: 422, code: 'DESTINATION_NOT_ALLOWED' });
      expect(error!.details).toEqual({ rule, destination_address: to });
    }
    const { error: small } = await api.run(withdraw(api, 1), { status: 422, code: 'WITHDRAWAL_TOO_SMALL' });
    expect(small!.details).toEqual({ min_micros: String(USDC) });
    const { data } = await api.run(withdraw(api, 4 * USDC), { status: 200 });
    expect(data as WithdrawResponse).toMatchObject({ amount_micros: String(4 * USDC), fee_micros: '100000' });
    for (let i = 0; i < 5; i++) await api.run(withdraw(api, 5 * USDC), { status: 200 }); // 29 USDC of the 30 a day
    const { error: limit } = await api.run(withdraw(api, 2 * USDC), { status: 422, code: 'WITHDRAWAL_LIMIT_EXCEEDED' });
    expect(limit!.details).toEqual({ limit_micros: String(30 * USDC), remaining_micros: String(USDC) });
    await api.run(withdraw(api, USDC), { status: 200 }); // exactly what remains
    const { error: dust } = await api.run(
      createDeposit({ client: api.client, body: { amount_micros: 999, idempotency_key: randomUUID() } }),
      {
        status: 422,
        code: 'DEPOSIT_TOO_SMALL',
      },
    );
    expect(dust!.details).toEqual({ min_micros: '1000' });
  });

  it('a withdrawal above the threshold is held (202 review); listAdminWithdrawals 200; approveWithdrawal 200, replay, 409, 404; it then settles', async () => {
    const api = await fundedUser(20 * USDC);
    const { data } = await api.run(withdraw(api, 6 * USDC), { status: 202 });
    const held = data as WithdrawalPending;
    expect(held).toMatchObject({ status: 'pending', fee_micros: '100000', pending_reason: 'review' });
    const { data: op } = await api.run(getOperation({ client: api.client, path: { operation_id: held.operation_id } }), { status: 200 });
    expect(op).toMatchObject({ status: 'pending', pending_reason: 'review', amount_micros: String(6 * USDC), fee_micros: '100000' });
    const { data: queue } = await operator.run(listAdminWithdrawals({ client: operator.client, query: { status: 'review' } }), {
      status: 200,
    });
    expect(queue!.withdrawals.find((w) => w.operation_id === held.operation_id)).toMatchObject({
      pending_reason: 'review',
      review: { status: 'review', causes: ['above_review_threshold'], operator: null, decided_at_ms: null },
    });
    const { data: byReason } = await operator.run(listAdminOperations({ client: operator.client, query: { pending_reason: 'review' } }), {
      status: 200,
    });
    expect(byReason!.operations.map((o) => o.operation_id)).toContain(held.operation_id);

    const body = { reason: 'known customer', idempotency_key: randomUUID() };
    const path = { operation_id: held.operation_id };
    const { data: approved } = await operator.run(approveWithdrawal({ client: operator.client, path, body }), { status: 200 });
    expect(approved).toMatchObject({
      status: 'pending',
      pending_reason: null,
      review: { status: 'approved', reason: 'known customer', operator: 'default' },
    });
    const again = await operator.run(approveWithdrawal({ client: operator.client, path, body }), { status: 200 });
    expect(again.checked.headers.get('idempotent-replayed')).toBe('true');
    const { error } = await operator.run(approveWithdrawal({ client: operator.client, path, body: { idempotency_key: randomUUID() } }), {
      status: 409,
      code: 'WITHDRAWAL_NOT_IN_REVIEW',
    });
    expect(error!.details).toMatchObject({ decision: 'approved' });
    await operator.run(
      approveWithdrawal({ client: operator.client, path: { operation_id: randomUUID() }, body: { idempotency_key: randomUUID() } }),
      {
        status: 404,
        code: 'WITHDRAWAL_NOT_FOUND',
      },
    );
    await expect
      .poll(async () => (await api.run(getOperation({ client: api.client, path }), { status: 200 })).data!.status, { timeout: 30_000 })
      .toBe('success');
    const { data: decided } = await operator.run(listAdminWithdrawals({ client: operator.client, query: { status: 'approved' } }), {
      status: 200,
    });
    expect(decided!.withdrawals[0]).toMatchObject({ operation_id: held.operation_id, status: 'success', review: { status: 'approved' } });
  });

  it('rejectWithdrawal 200 (refunded), replay, 409, 404; the withdrawal then answers 422 WITHDRAWAL_REJECTED; both decisions audited in their transaction', async () => {
    const api = await fundedUser(20 * USDC);
    const key = randomUUID();
    const to = randomWallet().address;
    const { data } = await api.run(withdraw(api, 7 * USDC, to, key), { status: 202 });
    const path = { operation_id: (data as WithdrawalPending).operation_id };
    const body = { reason: 'destination linked to a scam report', idempotency_key: randomUUID() };
    const { data: rejected } = await operator.run(rejectWithdrawal({ client: operator.client, path, body }), { status: 200 });
    expect(rejected).toMatchObject({
      status: 'failed',
      failure_code: 'WITHDRAWAL_REJECTED',
      review: { status: 'rejected', reason: body.reason },
    });
    const again = await operator.run(rejectWithdrawal({ client: operator.client, path, body }), { status: 200 });
    expect(again.checked.headers.get('idempotent-replayed')).toBe('true');
    await operator.run(rejectWithdrawal({ client: operator.client, path, body: { ...body, idempotency_key: randomUUID() } }), {
      status: 409,
      code: 'WITHDRAWAL_NOT_IN_REVIEW',
    });
    await operator.run(
      rejectWithdrawal({ client: operator.client, path: { operation_id: randomUUID() }, body: { ...body, idempotency_key: randomUUID() } }),
      {
        status: 404,
        code: 'WITHDRAWAL_NOT_FOUND',
      },
    );
    // The user's retry of the same request answers the withdrawal's state: rejected.
    const { error } = await api.run(withdraw(api, 7 * USDC, to, key), { status: 422, code: 'WITHDRAWAL_REJECTED' });
    expect(error!.details).toEqual(path);
    const { data: audit } = await operator.run(listAuditEntries({ client: operator.client, query: { limit: 20 } }), { status: 200 });
    // One row in each decision's own transaction (replays and refusals get rows of their own, outside it).
    for (const id of ['approveWithdrawal', 'rejectWithdrawal']) {
      expect(audit!.entries.filter((e) => e.operation_id === id && e.in_transaction)).toEqual([
        expect.objectContaining({ operator: 'default', status: 200, error_code: null }),
      ]);
    }
    expect(audit!.entries.find((e) => e.operation_id === 'rejectWithdrawal' && e.in_transaction)!.target).toBe(path.operation_id);
  });
});
