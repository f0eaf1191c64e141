// The user's history through the generated client, every response checked against the spec: listOperations
// (filters, pages, the same record as getOperation) and listLedgerMovements (a statement walked page by page,
// chained and adding up to the balances), each documented status but 401/403 (the framework cases of
// errors.test.ts) and 500/503 (pending). Demo settlement: deposits beyond the demo onchain balance and
// withdrawals to the zero address fail, so every status and posting kind of a deposit or withdrawal shows.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeposit,
  createSession,
  createWithdrawal,
  creditAppTokens,
  getAvailableAppTokenBalance,
  getAvailableBalance,
  getOperation,
  getReservedBalance,
  listLedgerMovements,
  listOperations,
} from '../generated/openapi/sdk.gen.ts';
import type { LedgerMovement, Operation } from '../generated/openapi/types.gen.ts';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { expectChained, fromWire } from '../src/testing/statement.js';
import { getAddress } from 'viem';
import { DEMO_FAILING_DESTINATION } from '../src/domain/settlement/demo.js';
import { startContractService, type ContractClient, type ContractService } from './harness.ts';

const DEMO_LIMIT = 1_000_000;
// The demo adapter fails a withdrawal to this address (src/domain/settlement/demo.ts); the zero address is refused at the door.
const FAILS = getAddress(DEMO_FAILING_DESTINATION);
const FORGED = `${Buffer.from('{"k":"operations","c":1,"i":"x","f":null}').toString('base64url')}.${randomBytes(16).toString('base64url')}`;
let svc: ContractService;
let privy: TestPrivy;

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('history', {
    env: { ...privy.env, RATE_LIMIT_PER_MINUTE: '0', DEMO_ONCHAIN_BALANCE_MICROS: String(DEMO_LIMIT) },
  });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

async function session(): Promise<{ token: string; userId: string; api: ContractClient }> {
  const anon = svc.client();
  const { data } = await anon.run(
    createSession({
      client: anon.client,
      body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, randomWallet().address) },
    }),
    { status: 200 },
  );
  return { token: data!.session_token, userId: data!.user_id, api: svc.client({ token: data!.session_token }) };
}

/** Two deposits (one beyond the demo balance: failed), a withdrawal paid and one refused by the chain (refunded). */
async function history(api: ContractClient) {
  const key = () => randomUUID();
  await api.run(createDeposit({ client: api.client, body: { amount_micros: 700_000, idempotency_key: key() } }), { status: 200 });
  await api.run(createDeposit({ client: api.client, body: { amount_micros: DEMO_LIMIT, idempotency_key: key() } }), {
    status: 422,
    code: 'SETTLEMENT_FAILED',
  });
  const dest = randomWallet().address;
  await api.run(
    createWithdrawal({ client: api.client, body: { amount_micros: 200_000, destination_address: dest, idempotency_key: key() } }),
    {
      status: 200,
    },
  );
  await api.run(
    createWithdrawal({ client: api.client, body: { amount_micros: 50_000, destination_address: FAILS, idempotency_key: key() } }),
    {
      status: 422,
      code: 'SETTLEMENT_FAILED',
    },
  );
  return dest;
}

async function allOperations(api: ContractClient, query: { kind?: 'deposit' | 'withdraw'; status?: 'pending' | 'success' | 'failed' }) {
  const out: Operation[] = [];
  let cursor: string | undefined;
  do {
    const { data } = await api.run(listOperations({ client: api.client, query: { ...query, limit: 1, ...(cursor ? { cursor } : {}) } }), {
      status: 200,
    });
    out.push(...data!.operations);
    cursor = data!.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

describe('listOperations', () => {
  it('200: newest first, page by page, each as getOperation answers it, filtered by kind and status', async () => {
    const u = await session();
    const dest = await history(u.api);
    const { data } = await u.api.run(listOperations({ client: u.api.client }), { status: 200 });
    expect(data!.next_cursor).toBeNull();
    const ops = data!.operations;
    expect(ops.map((o) => [o.kind, o.status, o.amount_micros])).toEqual([
      ['withdraw', 'failed', '50000'],
      ['withdraw', 'success', '200000'],
      ['deposit', 'failed', String(DEMO_LIMIT)],
      ['deposit', 'success', '700000'],
    ]);
    expect(ops[1]).toMatchObject({ destination_address: dest, fee_micros: '0', tx_hashes: [], confirmations: null, pending_reason: null });
    expect(ops[0]).toMatchObject({
      destination_address: FAILS,
      tx_hash: null,
      failure_code: 'SETTLEMENT_FAILED',
      settled_at_ms: expect.any(Number),
    });
    expect(ops[3]!.settled_at_ms).toBeGreaterThanOrEqual(ops[3]!.created_at_ms);
    for (const op of ops) {
      const { data: one } = await u.api.run(getOperation({ client: u.api.client, path: { operation_id: op.operation_id } }), {
        status: 200,
      });
      expect(one).toEqual(op);
    }
    expect(await allOperations(u.api, {})).toEqual(ops);
    expect((await allOperations(u.api, { kind: 'withdraw' })).map((o) => o.operation_id)).toEqual([
      ops[0]!.operation_id,
      ops[1]!.operation_id,
    ]);
    expect((await allOperations(u.api, { status: 'failed' })).map((o) => o.operation_id)).toEqual([
      ops[0]!.operation_id,
      ops[2]!.operation_id,
    ]);
    expect(await allOperations(u.api, { kind: 'deposit', status: 'pending' })).toEqual([]);
    const other = await session();
    expect((await other.api.run(listOperations({ client: other.api.client }), { status: 200 })).data).toEqual({
      operations: [],
      next_cursor: null,
    });
  });

  it('400 INVALID_CURSOR for a forged cursor or one replayed with other filters; 400 VALIDATION_FAILED for a bad filter', async () => {
    const u = await session();
    await history(u.api);
    const { data } = await u.api.run(listOperations({ client: u.api.client, query: { kind: 'withdraw', limit: 1 } }), { status: 200 });
    const cursor = data!.next_cursor!;
    await u.api.run(listOperations({ client: u.api.client, query: { kind: 'deposit', cursor } }), { status: 400, code: 'INVALID_CURSOR' });
    await u.api.run(listOperations({ client: u.api.client, query: { cursor: FORGED } }), { status: 400, code: 'INVALID_CURSOR' });
    await svc.call('listOperations', { token: u.token, query: { kind: 'transfer' } }, { status: 400, code: 'VALIDATION_FAILED' });
  });
});

async function statement(api: ContractClient, limit: number): Promise<LedgerMovement[]> {
  const out: LedgerMovement[] = [];
  let cursor: string | undefined;
  do {
    const { data } = await api.run(listLedgerMovements({ client: api.client, query: { limit, ...(cursor ? { cursor } : {}) } }), {
      status: 200,
    });
    expect(data!.movements.length).toBeLessThanOrEqual(limit);
    out.push(...data!.movements);
    cursor = data!.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

describe('listLedgerMovements', () => {
  it('200: the statement, page by page, chained and adding up to the three balances', async () => {
    const u = await session();
    await history(u.api);
    const op = svc.client({ token: svc.operatorToken });
    const credit = randomUUID();
    await op.run(
      creditAppTokens({ client: op.client, path: { user_id: u.userId }, body: { amount_micros: 3_000, idempotency_key: credit } }),
      {
        status: 200,
      },
    );
    const walk = await statement(u.api, 2);
    expect(walk.map((m) => m.kind)).toEqual([
      'app_token_credit',
      'withdraw_refund',
      'withdraw_reserve',
      'withdraw_settle',
      'withdraw_reserve',
      'deposit',
    ]);
    expect(walk[0]!.reference).toEqual({ type: 'app_token_credit', id: credit });
    expect(walk.at(-1)).toMatchObject({ change: { available_micros: '700000', reserved_micros: '0', available_app_token_micros: '0' } });
    const total = expectChained(walk.map(fromWire));
    const [a, r, t] = await Promise.all([
      u.api.run(getAvailableBalance({ client: u.api.client }), { status: 200 }),
      u.api.run(getReservedBalance({ client: u.api.client }), { status: 200 }),
      u.api.run(getAvailableAppTokenBalance({ client: u.api.client }), { status: 200 }),
    ]);
    expect(total).toEqual({
      available: BigInt(a.data!.available_micros),
      reserved: BigInt(r.data!.reserved_micros),
      appToken: BigInt(t.data!.available_app_token_micros),
    });
    expect(total).toEqual({ available: 500_000n, reserved: 0n, appToken: 3_000n });
    expect((await statement(u.api, 50)).map((m) => m.movement_id)).toEqual(walk.map((m) => m.movement_id));
  });

  it("400 INVALID_CURSOR for a forged cursor or another user's; 400 VALIDATION_FAILED for a bad limit", async () => {
    const [u, other] = [await session(), await session()];
    await history(u.api);
    const { data } = await u.api.run(listLedgerMovements({ client: u.api.client, query: { limit: 1 } }), { status: 200 });
    await other.api.run(listLedgerMovements({ client: other.api.client, query: { cursor: data!.next_cursor! } }), {
      status: 400,
      code: 'INVALID_CURSOR',
    });
    await u.api.run(listLedgerMovements({ client: u.api.client, query: { cursor: FORGED } }), { status: 400, code: 'INVALID_CURSOR' });
    await svc.call('listLedgerMovements', { token: u.token, query: { limit: 'abc' } }, { status: 400, code: 'VALIDATION_FAILED' });
  });
});
