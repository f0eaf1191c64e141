// The onchain settlement mode's responses through the generated client, against a local anvil chain with
// the test USDC (src/testing/chain.ts): getDepositWallet with asset_address and spender_address, a pull
// deposit refused for its allowance (ALLOWANCE_TOO_LOW) and for its balance (BALANCE_TOO_LOW) and then
// settled (200 with the mined hash), a withdrawal settled on chain, the operation polled, and both in the
// user's history (listOperations with the transactions' hashes and confirmations, listLedgerMovements). Every
// response is checked against the spec.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem/accounts';
import {
  createDeposit,
  createSession,
  createWithdrawal,
  getDepositWallet,
  getOperation,
  listLedgerMovements,
  listOperations,
} from '../generated/openapi/sdk.gen.ts';
import type { DepositResponse, WithdrawResponse } from '../generated/openapi/types.gen.ts';
import { startTestChain, type TestChain } from '../src/testing/chain.js';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { startContractService, type ContractService } from './harness.ts';

let chain: TestChain;
let svc: ContractService;
let privy: TestPrivy;

beforeAll(async () => {
  privy = await createTestPrivy();
  chain = await startTestChain();
  svc = await startContractService('onchain', {
    env: { ...privy.env, ...chain.env, RATE_LIMIT_PER_MINUTE: '0', DEPOSIT_SYNC_WAIT_MS: '15000' },
  });
}, 60_000);
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
  await chain?.stop();
});

async function session(wallet: PrivateKeyAccount) {
  const api = svc.client();
  const { data } = await api.run(
    createSession({
      client: api.client,
      body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
    }),
    { status: 200 },
  );
  return svc.client({ token: data!.session_token });
}

describe('onchain settlement', () => {
  it('getDepositWallet 200 names the token and the spender; createDeposit 422 ALLOWANCE_TOO_LOW, 422 BALANCE_TOO_LOW, then 200', async () => {
    const wallet = await chain.newWallet(4_000_000n);
    const api = await session(wallet);
    const { data: dw } = await api.run(getDepositWallet({ client: api.client }), { status: 200 });
    expect(dw).toMatchObject({
      mode: 'onchain',
      chain_id: 31337,
      asset: 'USDC',
      asset_address: chain.token,
      spender_address: chain.settlement.address,
    });

    const spender = dw!.spender_address as `0x${string}`;
    await chain.approve(wallet, spender, 1_000_000n);
    const short = await api.run(createDeposit({ client: api.client, body: { amount_micros: 2_000_000, idempotency_key: randomUUID() } }), {
      status: 422,
      code: 'ALLOWANCE_TOO_LOW',
    });
    expect(short.error).toMatchObject({ details: { allowance_micros: '1000000', needed_micros: '2000000' } });

    await chain.approve(wallet, spender, 10_000_000n);
    await api.run(createDeposit({ client: api.client, body: { amount_micros: 5_000_000, idempotency_key: randomUUID() } }), {
      status: 422,
      code: 'BALANCE_TOO_LOW',
    });

    const { data: deposited } = await api.run(
      createDeposit({ client: api.client, body: { amount_micros: 3_000_000, idempotency_key: randomUUID() } }),
      {
        status: 200,
      },
    );
    const dep = deposited as DepositResponse;
    const logs = await chain.transfers(chain.settlement.address);
    expect(logs.filter((l) => l.from === wallet.address)).toEqual([expect.objectContaining({ value: 3_000_000n, txHash: dep.tx_hash })]);

    const to = randomWallet().address;
    const { data: withdrawn } = await api.run(
      createWithdrawal({ client: api.client, body: { amount_micros: 1_250_000, destination_address: to, idempotency_key: randomUUID() } }),
      { status: 200 },
    );
    const wd = withdrawn as WithdrawResponse;
    expect(await chain.transfers(to)).toEqual([expect.objectContaining({ value: 1_250_000n, txHash: wd.tx_hash })]);
    const { data: op } = await api.run(getOperation({ client: api.client, path: { operation_id: wd.operation_id } }), { status: 200 });
    expect(op).toMatchObject({ kind: 'withdraw', status: 'success', tx_hash: wd.tx_hash, failure_code: null });
    // The history: the chain side's stored details (every hash sent, confirmations at least CHAIN_CONFIRMATIONS) and the statement.
    const { data: list } = await api.run(listOperations({ client: api.client }), { status: 200 });
    expect(list!.operations).toEqual([op, expect.objectContaining({ operation_id: dep.operation_id, tx_hash: dep.tx_hash })]);
    for (const o of list!.operations) {
      expect(o.tx_hashes).toContain(o.tx_hash);
      expect(o.confirmations).toBeGreaterThanOrEqual(Number(chain.env.CHAIN_CONFIRMATIONS));
    }
    expect(op!.destination_address).toBe(to);
    const { data: ledger } = await api.run(listLedgerMovements({ client: api.client }), { status: 200 });
    expect(ledger!.movements.map((m) => m.kind)).toEqual(['withdraw_settle', 'withdraw_reserve', 'deposit']);
    expect(ledger!.movements[0]!.balances_after).toEqual({
      available_micros: '1750000',
      reserved_micros: '0',
      available_app_token_micros: '0',
    });
  }, 90_000);
});
