// Balances, deposits, withdrawals, operations, the deposit wallet and the operator's app-token credit
// through the generated client: every documented status except 500/503 (pending) and the 401/403 the
// framework cases of errors.test.ts cover. Every response is checked against the spec.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeposit,
  createSession,
  createWithdrawal,
  creditAppTokens,
  getAvailableAppTokenBalance,
  getAvailableBalance,
  getDepositWallet,
  getOperation,
  getReservedBalance,
} from '../generated/openapi/sdk.gen.ts';
import type { DepositResponse, OperationPending } from '../generated/openapi/types.gen.ts';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { expectErrorBody, startContractService, type ContractService } from './harness.ts';
import { jsonOfSize, JSON_LIMIT_BYTES } from './framework-cases.ts';

const DEMO_LIMIT = 1_000_000;
let svc: ContractService;
/** The same service with DEPOSIT_SYNC_WAIT_MS=0: every deposit and withdrawal answers 202. */
let noWait: ContractService;
let privy: TestPrivy;

beforeAll(async () => {
  privy = await createTestPrivy();
  const env = { ...privy.env, RATE_LIMIT_PER_MINUTE: '0', DEMO_ONCHAIN_BALANCE_MICROS: String(DEMO_LIMIT) };
  [svc, noWait] = await Promise.all([
    startContractService('balances', { env }),
    startContractService('balances202', { env: { ...env, DEPOSIT_SYNC_WAIT_MS: '0' } }),
  ]);
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
  if (noWait) expect(await noWait.stop()).toBe(0);
});

async function session(on: ContractService = svc): Promise<{ token: string; userId: string }> {
  const api = on.client();
  const { data } = await api.run(
    createSession({
      client: api.client,
      body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, randomWallet().address) },
    }),
    { status: 200 },
  );
  return { token: data!.session_token, userId: data!.user_id };
}

describe('balances and deposits', () => {
  it('getAvailableBalance, getReservedBalance, getAvailableAppTokenBalance 200; createDeposit 200 and its replay; getOperation 200', async () => {
    const u = await session();
    const api = svc.client({ token: u.token });
    const { data: zero } = await api.run(getAvailableBalance({ client: api.client }), { status: 200 });
    expect(zero).toEqual({ available_micros: '0' });
    const body = { amount_micros: 250_000, idempotency_key: randomUUID() };
    const { data: res, checked } = await api.run(createDeposit({ client: api.client, body }), { status: 200 });
    const dep = res as DepositResponse;
    expect(dep!.amount_micros).toBe('250000');
    expect(checked.headers.get('idempotent-replayed')).toBeNull();
    const { data: again, checked: replayed } = await api.run(createDeposit({ client: api.client, body }), { status: 200 });
    expect(again).toEqual(dep);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.run(getAvailableBalance({ client: api.client }), { status: 200 })).data).toEqual({ available_micros: '250000' });
    expect((await api.run(getReservedBalance({ client: api.client }), { status: 200 })).data).toEqual({ reserved_micros: '0' });
    expect((await api.run(getAvailableAppTokenBalance({ client: api.client }), { status: 200 })).data).toEqual({
      available_app_token_micros: '0',
    });
    const { data: op } = await api.run(getOperation({ client: api.client, path: { operation_id: dep!.operation_id } }), { status: 200 });
    expect(op).toMatchObject({
      operation_id: dep!.operation_id,
      kind: 'deposit',
      status: 'success',
      tx_hash: dep!.tx_hash,
      failure_code: null,
    });
  });

  it('createDeposit 202 when settlement does not finish within the wait; getOperation reports it', async () => {
    const u = await session(noWait);
    const api = noWait.client({ token: u.token });
    const { data: res } = await api.run(createDeposit({ client: api.client, body: { amount_micros: 5, idempotency_key: randomUUID() } }), {
      status: 202,
    });
    const data = res as OperationPending;
    expect(data.status).toBe('pending');
    await api.run(getOperation({ client: api.client, path: { operation_id: data.operation_id } }), { status: 200 });
  });

  it('createDeposit 422 SETTLEMENT_FAILED beyond the demo onchain balance; 409 for a reused key', async () => {
    const u = await session();
    const api = svc.client({ token: u.token });
    const { checked } = await api.run(
      createDeposit({ client: api.client, body: { amount_micros: DEMO_LIMIT + 1, idempotency_key: randomUUID() } }),
      {
        status: 422,
        code: 'SETTLEMENT_FAILED',
      },
    );
    expectErrorBody(checked.body);
    const key = randomUUID();
    await api.run(createDeposit({ client: api.client, body: { amount_micros: 1, idempotency_key: key } }), { status: 200 });
    await api.run(createDeposit({ client: api.client, body: { amount_micros: 2, idempotency_key: key } }), {
      status: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('createDeposit 400, 413, 415', async () => {
    const { token } = await session();
    await svc.call(
      'createDeposit',
      { token, body: { amount_micros: 0, idempotency_key: randomUUID() } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    await svc.call(
      'createDeposit',
      { token, rawBody: jsonOfSize(JSON_LIMIT_BYTES + 1), contentType: 'application/json' },
      { status: 413, code: 'PAYLOAD_TOO_LARGE' },
    );
    await svc.call('createDeposit', { token, rawBody: '{}', contentType: 'text/plain' }, { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});

describe('withdrawals', () => {
  it('createWithdrawal 200, 422 INSUFFICIENT_BALANCE, 409, 400 (EIP-55), 413, 415', async () => {
    const u = await session();
    const api = svc.client({ token: u.token });
    await api.run(createDeposit({ client: api.client, body: { amount_micros: 1000, idempotency_key: randomUUID() } }), { status: 200 });
    const dest = randomWallet().address;
    const key = randomUUID();
    const { data } = await api.run(
      createWithdrawal({ client: api.client, body: { amount_micros: 600, destination_address: dest, idempotency_key: key } }),
      { status: 200 },
    );
    expect(data).toMatchObject({ amount_micros: '600', destination_address: dest });
    await api.run(
      createWithdrawal({ client: api.client, body: { amount_micros: 600, destination_address: dest, idempotency_key: randomUUID() } }),
      {
        status: 422,
        code: 'INSUFFICIENT_BALANCE',
      },
    );
    await api.run(
      createWithdrawal({
        client: api.client,
        body: { amount_micros: 600, destination_address: randomWallet().address, idempotency_key: key },
      }),
      {
        status: 409,
        code: 'IDEMPOTENCY_KEY_REUSED',
      },
    );
    const badChecksum =
      dest.replace(/[a-f]/, (c) => c.toUpperCase()) === dest
        ? dest.replace(/[A-F]/, (c) => c.toLowerCase())
        : dest.replace(/[a-f]/, (c) => c.toUpperCase());
    await svc.call(
      'createWithdrawal',
      { token: u.token, body: { amount_micros: 1, destination_address: badChecksum, idempotency_key: randomUUID() } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    await svc.call(
      'createWithdrawal',
      { token: u.token, rawBody: jsonOfSize(JSON_LIMIT_BYTES + 1), contentType: 'application/json' },
      { status: 413, code: 'PAYLOAD_TOO_LARGE' },
    );
    await svc.call(
      'createWithdrawal',
      { token: u.token, rawBody: '{}', contentType: 'text/plain' },
      { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    );
    expect((await api.run(getReservedBalance({ client: api.client }), { status: 200 })).data).toEqual({ reserved_micros: '0' });
  });

  it('createWithdrawal 202 when settlement does not finish within the wait', async () => {
    const u = await session(noWait);
    const api = noWait.client({ token: u.token });
    const { data: dep } = await api.run(
      createDeposit({ client: api.client, body: { amount_micros: 100, idempotency_key: randomUUID() } }),
      {
        status: 202,
      },
    );
    await expect
      .poll(
        async () =>
          (await api.run(getOperation({ client: api.client, path: { operation_id: dep!.operation_id } }), { status: 200 })).data!.status,
        { timeout: 30_000 },
      )
      .toBe('success');
    await api.run(
      createWithdrawal({
        client: api.client,
        body: { amount_micros: 40, destination_address: randomWallet().address, idempotency_key: randomUUID() },
      }),
      { status: 202 },
    );
  });
});

describe('operations and the deposit wallet', () => {
  it('getOperation 404 for another user or an unknown id, 400 for a malformed id; getDepositWallet 200', async () => {
    const u = await session();
    const api = svc.client({ token: u.token });
    const { data: dep } = await api.run(createDeposit({ client: api.client, body: { amount_micros: 1, idempotency_key: randomUUID() } }), {
      status: 200,
    });
    const other = await session();
    const theirs = svc.client({ token: other.token });
    await theirs.run(getOperation({ client: theirs.client, path: { operation_id: dep!.operation_id } }), {
      status: 404,
      code: 'OPERATION_NOT_FOUND',
    });
    await api.run(getOperation({ client: api.client, path: { operation_id: randomUUID() } }), { status: 404, code: 'OPERATION_NOT_FOUND' });
    await svc.call(
      'getOperation',
      { token: u.token, pathParams: { operation_id: 'not-a-uuid' } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    const { data: wallet } = await api.run(getDepositWallet({ client: api.client }), { status: 200 });
    expect(wallet).toMatchObject({ asset: 'USDC', mode: 'demo' });
  });
});

describe('creditAppTokens', () => {
  it('200 and its replay, 409, 404 USER_NOT_FOUND, 403 for a user token', async () => {
    const u = await session();
    const op = svc.client({ token: svc.operatorToken });
    const body = { amount_micros: 5_000_000, idempotency_key: randomUUID() };
    const { data } = await op.run(creditAppTokens({ client: op.client, path: { user_id: u.userId }, body }), { status: 200 });
    expect(data).toEqual({ user_id: u.userId, amount_micros: '5000000', available_app_token_micros: '5000000' });
    const { checked } = await op.run(creditAppTokens({ client: op.client, path: { user_id: u.userId }, body }), { status: 200 });
    expect(checked.headers.get('idempotent-replayed')).toBe('true');
    await op.run(creditAppTokens({ client: op.client, path: { user_id: u.userId }, body: { ...body, amount_micros: 1 } }), {
      status: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    await op.run(
      creditAppTokens({ client: op.client, path: { user_id: randomUUID() }, body: { amount_micros: 1, idempotency_key: randomUUID() } }),
      {
        status: 404,
        code: 'USER_NOT_FOUND',
      },
    );
    const asUser = svc.client({ token: u.token });
    await asUser.run(
      creditAppTokens({ client: asUser.client, path: { user_id: u.userId }, body: { amount_micros: 1, idempotency_key: randomUUID() } }),
      { status: 403, code: 'FORBIDDEN' },
    );
    const mine = svc.client({ token: u.token });
    expect((await mine.run(getAvailableAppTokenBalance({ client: mine.client }), { status: 200 })).data).toEqual({
      available_app_token_micros: '5000000',
    });
  });
});
