// Pull deposits against a real local chain (two API processes and a workers process on PostgreSQL + Redis):
// POST /v1/users/deposit moves USDC with transferFrom(wallet, settlement wallet, amount) after the user's
// approve(). Short balance or allowance (this deposit plus the wallet's pending ones) is 422 with a code that
// says which, and nothing is opened or sent; a transferFrom that reverts fails the deposit and credits
// nothing; enough answers 200 with the mined hash. GET /v1/users/deposit-wallet names the token and spender.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeposit, getAvailableBalance, getDepositWallet } from '../generated/openapi/sdk.gen.js';
import type { DepositResponse } from '../generated/openapi/types.gen.js';
import { sdkClient, sent } from '../src/testing/sdk-client.js';
import { startServiceProcess } from '../src/testing/service-process.js';
import { startOnchainStack, type OnchainStack, type OnchainUser } from '../src/testing/onchain-stack.js';

let s: OnchainStack;
beforeAll(async () => {
  s = await startOnchainStack({ label: 'pulldep', deployment: 'redis', apis: 2, env: { DEPOSIT_SYNC_WAIT_MS: '8000' } });
}, 120_000);
afterAll(async () => s?.stop());

const deposit = (u: OnchainUser, micros: number, api = 0) =>
  sent(createDeposit({ client: sdkClient(s.apis[api]!.baseUrl, u.token), body: { amount_micros: micros, idempotency_key: randomUUID() } }));
const available = async (u: OnchainUser) =>
  (await sent(getAvailableBalance({ client: sdkClient(s.apis[1]!.baseUrl, u.token) }))).data?.available_micros;
const depositWallet = (u: OnchainUser, api: number) => sent(getDepositWallet({ client: sdkClient(s.apis[api]!.baseUrl, u.token) }));
const operationsOf = async (u: OnchainUser) =>
  Number((await s.sql.query(`select count(*)::int as n from operations where user_id = $1`, [u.userId])).rows[0].n);
const sentFor = async (u: OnchainUser) =>
  Number(
    (
      await s.sql.query(
        `select count(*)::int as n from chain_transactions c join operations o on o.id = c.operation_id where o.user_id = $1`,
        [u.userId],
      )
    ).rows[0].n,
  );

describe('GET /v1/users/deposit-wallet (onchain)', () => {
  it('answers a distinct custodial address per user, the token and the spender to approve', async () => {
    const [a, b] = await Promise.all([s.newUser(), s.newUser()]);
    const wa = await depositWallet(a, 0);
    const wb = await depositWallet(b, 1);
    expect(wa.status).toBe(200);
    expect(wa.data).toEqual({
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      chain_id: 31337,
      asset: 'USDC',
      mode: 'onchain',
      asset_address: s.chain.token,
      spender_address: s.chain.settlement.address,
    });
    expect(wb.data?.address).not.toBe(wa.data?.address);
    expect(wa.data?.address).not.toBe(s.chain.settlement.address);
    // Stable: the same user gets the same address from any process.
    expect((await depositWallet(a, 1)).data?.address).toBe(wa.data?.address);
  });
});

describe('POST /v1/users/deposit (onchain pull deposit)', () => {
  it('allowance short: 422 ALLOWANCE_TOO_LOW, nothing opened, nothing sent', async () => {
    const u = await s.newUser(10_000_000n);
    await s.chain.approve(u.wallet, s.chain.settlement.address, 5_000_000n);
    const res = await deposit(u, 6_000_000);
    expect(res.status).toBe(422);
    expect(res.error).toMatchObject({
      code: 'ALLOWANCE_TOO_LOW',
      details: { allowance_micros: '5000000', needed_micros: '6000000', spender_address: s.chain.settlement.address },
    });
    expect(await operationsOf(u)).toBe(0);
    expect(await sentFor(u)).toBe(0);
    expect(await s.chain.balanceOf(u.wallet.address)).toBe(10_000_000n);
    expect(await available(u)).toBe('0');
  });

  it('balance short: 422 BALANCE_TOO_LOW, nothing opened, nothing sent', async () => {
    const u = await s.newUser(3_000_000n);
    await s.chain.approve(u.wallet, s.chain.settlement.address, 10_000_000n);
    const res = await deposit(u, 5_000_000, 1);
    expect(res.status).toBe(422);
    expect(res.error).toMatchObject({ code: 'BALANCE_TOO_LOW', details: { balance_micros: '3000000', needed_micros: '5000000' } });
    expect(await operationsOf(u)).toBe(0);
    expect(await s.chain.balanceOf(u.wallet.address)).toBe(3_000_000n);
  });

  it('enough: 200 with the mined transferFrom hash; the USDC moved to the settlement wallet and is available', async () => {
    const u = await s.newUser(7_000_000n);
    await s.chain.approve(u.wallet, s.chain.settlement.address, 7_000_000n);
    const before = await s.chain.balanceOf(s.chain.settlement.address);
    const res = await deposit(u, 7_000_000);
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      amount_micros: '7000000',
      operation_id: expect.any(String),
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const logs = (await s.chain.transfers(s.chain.settlement.address)).filter((l) => l.from === u.wallet.address);
    expect(logs).toEqual([expect.objectContaining({ value: 7_000_000n, txHash: (res.data as DepositResponse).tx_hash })]);
    expect(await s.chain.balanceOf(s.chain.settlement.address)).toBe(before + 7_000_000n);
    expect(await available(u)).toBe('7000000');
    expect(await s.ledgerProblems()).toEqual([]);
  });

  it('pending deposits count against the wallet; a deposit its wallet no longer covers fails before any transaction, crediting nothing', async () => {
    const u = await s.newUser(4_000_000n);
    await s.chain.approve(u.wallet, s.chain.settlement.address, 10_000_000n);
    // No workers for a moment: the first deposit stays pending.
    const worker = s.workers[0]!;
    expect(await worker.stop('SIGTERM')).toBe(0);
    s.workers.length = 0;
    const first = await deposit(u, 3_000_000);
    // Waits DEPOSIT_SYNC_WAIT_MS for a worker that is not there, then 202.
    expect(first.status).toBe(202);
    const second = await deposit(u, 2_000_000, 1);
    expect(second.status).toBe(422);
    expect(second.error).toMatchObject({
      code: 'BALANCE_TOO_LOW',
      details: { needed_micros: '5000000', pending_deposits_micros: '3000000' },
    });
    // The wallet spends its USDC elsewhere before the service sends: its transferFrom would revert, so it is never
    // signed (no gas burned): the deposit fails with what the chain says, and credits nothing.
    await s.chain.transfer(u.wallet, s.chain.faucet.address, 4_000_000n);
    await s.startWorkers();
    expect(await s.final(u, first.data!.operation_id)).toMatchObject({ status: 'failed', failure_code: 'BALANCE_TOO_LOW', tx_hash: null });
    expect(await available(u)).toBe('0');
    const txs = (await s.sql.query(`select receipt_status from chain_transactions where operation_id = $1`, [first.data!.operation_id]))
      .rows;
    expect(txs).toEqual([]);
    expect(await s.ledgerProblems()).toEqual([]);
  }, 90_000);
});

describe('settlement gauges', () => {
  it('/metrics exports the reconciliation surplus and the settlement wallet gas; below SETTLEMENT_GAS_FLOOR_WEI the service warns', async () => {
    const api = await startServiceProcess({ env: { ...s.env, SETTLEMENT_GAS_FLOOR_WEI: '1' + '0'.repeat(30) }, args: ['--role=api'] });
    try {
      // The gauges' first refresh warns (after it the gauges hold values).
      const warning = await api.waitForLog((l) => /less gas than SETTLEMENT_GAS_FLOOR_WEI: top it up/.test(String(l.msg)));
      expect(warning).toMatchObject({ level: 'warn', settlement_address: s.chain.settlement.address });
      const text = await (await fetch(`${api.baseUrl}/metrics`)).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      expect(value('settlement_wallet_gas_wei')).toBeGreaterThan(0);
      expect(value('settlement_wallet_gas_floor_wei')).toBe(1e30);
      expect(value('settlement_onchain_surplus_micros')).toBe(0);
      expect(value('settlement_onchain_held_micros')).toBe(value('settlement_onchain_liabilities_micros'));
      // No secret in anything the process wrote.
      expect(api.rawOutput.join('\n')).not.toContain(s.env.SETTLEMENT_PRIVATE_KEY!.slice(2));
      expect(api.rawOutput.join('\n')).not.toContain('abandon abandon');
    } finally {
      await api.stop();
    }
  });
});
