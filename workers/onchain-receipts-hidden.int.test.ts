// Issue 39's regression, black-box: the services reach anvil through a hosted-provider stand-in that answers
// `eth_getTransactionReceipt` with `null` for 60 s after each transaction is mined (src/testing/rpc-provider.ts;
// `transactions: 'pending'`: the transaction index lags too, so the service has to find the block by the nonce).
// That is what a load-balanced provider does when the node that answers has not indexed the block yet. A
// withdrawal, a pull deposit and a custodial deposit's sweep are sent under it with CHAIN_REPLACE_AFTER_MS at
// 2 s, so every one of them is "not mined in time" many times over while its nonce is already used on chain:
//   - while hidden: nothing fails, nothing is refunded or credited, nothing is replaced at a used nonce; the
//     withdrawal and the deposit wait as `receipt_missing` (never `needs_review` within
//     CHAIN_RECEIPT_REVIEW_AFTER_MS), the withdrawal's destination is already paid on chain;
//   - once the receipts reappear: each ends `success` naming the mined hash, paid exactly once on chain and
//     posted once in the ledger, the sweep `done`, `ledger:check` clean (surplus 0).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeposit } from '../generated/openapi/sdk.gen.js';
import { available, depositAddressOf, until } from '../src/testing/custodial.js';
import { startOnchainStack, type OnchainStack } from '../src/testing/onchain-stack.js';
import { sdkClient, sent } from '../src/testing/sdk-client.js';

const HIDDEN_MS = 60_000;

describe('receipts hidden by the provider for 60 s after mining (issue 39)', () => {
  let s: OnchainStack;
  beforeAll(async () => {
    s = await startOnchainStack({
      label: 'rcpt',
      deployment: 'redis',
      provider: true,
      chain: { blockTime: 1, confirmations: 2 },
      env: { CHAIN_REPLACE_AFTER_MS: '2000', CHAIN_RECEIPT_REVIEW_AFTER_MS: '600000', CHAIN_DEPOSIT_SCAN_EVERY_MS: '500' },
    });
  }, 120_000);
  afterAll(async () => s?.stop());

  const op = async (id: string) =>
    (await s.sql.query(`select status, pending_reason, tx_hash, failure_code from operations where id = $1`, [id])).rows[0] as {
      status: string;
      pending_reason: string | null;
      tx_hash: string | null;
      failure_code: string | null;
    };
  const postings = async (id: string) =>
    (await s.sql.query(`select kind from ledger_transactions where reference = $1 order by kind`, [id])).rows.map((r) => r.kind as string);
  const attempts = async (id: string) =>
    (await s.sql.query(`select count(*)::int as n from chain_transactions where operation_id = $1`, [id])).rows[0].n;

  it('a withdrawal, a pull deposit and a sweep wait for the receipts, then settle once each', async () => {
    const payer = await s.fundedUser(10_000_000n); // settled before the receipts are hidden
    const depositor = await s.newUser(6_000_000n);
    await s.chain.approve(depositor.wallet, s.chain.settlement.address, 6_000_000n);
    const custodial = await s.newUser();
    const address = await depositAddressOf(s, custodial);
    const sender = await s.chain.newWallet(20_000_000n);

    s.provider!.hideReceipts({ forMs: HIDDEN_MS, transactions: 'pending' });
    const started = Date.now();
    const w = await s.withdraw(payer, 4_000_000);
    expect(w.status).toBe(202);
    const d = await sent(
      createDeposit({
        client: sdkClient(s.apis[0]!.baseUrl, depositor.token),
        body: { amount_micros: 6_000_000, idempotency_key: randomUUID() },
      }),
    );
    expect(d.status).toBe(202);
    const depositId = d.data!.operation_id;
    await s.chain.transfer(sender, address, 3_000_000n);

    // Mined, its nonce used, its receipt hidden: the withdrawal's destination is paid and the operation waits.
    await until(s, 'the withdrawal paid on chain', async () => (await s.chain.balanceOf(w.to)) === 4_000_000n, { timeoutMs: 30_000 });
    await until(s, 'both operations waiting as receipt_missing', async () =>
      [(await op(w.id)).pending_reason, (await op(depositId)).pending_reason].every((r) => r === 'receipt_missing'),
    );
    // The custodial transfer is credited from its log (logs are not hidden); its sweep waits for receipts.
    await until(s, 'the custodial credit', async () => (await available(s, custodial)) === 3_000_000n);
    while (Date.now() - started < HIDDEN_MS - 10_000) {
      for (const id of [w.id, depositId]) {
        expect(await op(id)).toMatchObject({ status: 'pending', failure_code: null, tx_hash: null });
        expect(await attempts(id)).toBe(1); // never replaced at a used nonce
      }
      expect(await postings(w.id)).toEqual(['withdraw_reserve']); // reserved, not refunded
      expect(await postings(depositId)).toEqual([]); // not credited
      expect(await available(s, payer)).toBe(6_000_000n);
      await new Promise((r) => setTimeout(r, 2000));
    }

    // The receipts reappear (the provider's node catches up; later transactions, like the sweep's transfer, are
    // not hidden): each operation ends success with the hash that was mined, paid and posted once.
    await new Promise((r) => setTimeout(r, Math.max(0, HIDDEN_MS - (Date.now() - started))));
    s.provider!.showReceipts();
    expect(await s.paidOnceProblems(payer, w.id, w.to, 4_000_000)).toEqual([]);
    const deposited = await s.final(depositor, depositId, 60_000);
    const pulled = (await s.chain.transfers(s.chain.settlement.address)).filter((l) => l.from === depositor.wallet.address);
    expect(pulled).toEqual([expect.objectContaining({ value: 6_000_000n, txHash: deposited.tx_hash })]);
    expect(deposited).toMatchObject({ status: 'success', pending_reason: null });
    expect(await postings(depositId)).toEqual(['deposit']);
    expect(await available(s, depositor)).toBe(6_000_000n);
    await until(s, 'the sweep done', async () => {
      const { rows } = await s.sql.query(`select status from deposit_sweeps where address = $1`, [address]);
      return rows.length === 1 && rows[0].status === 'done';
    });
    expect(await s.chain.balanceOf(address)).toBe(0n);
    expect(await s.ledgerProblems()).toEqual([]);
    const check = await s.ledgerCheck();
    expect(check.code, check.output).toBe(0);
    expect(check.onchain).toMatchObject({ deficit: false, surplus_micros: '0' });
  }, 240_000);
});
