// Onchain withdrawals against a real local chain (anvil mining a block a second), with two API processes
// and a workers process on PostgreSQL + Redis, and again on the PostgreSQL-only deployment: 30 concurrent
// withdrawals of 3 users get 30 distinct consecutive nonces and 30 mined transfers, each destination paid
// exactly once (Transfer logs counted), each operation answering the hash that was mined; a withdrawal to a
// destination Circle's USDC blacklists fails before any transaction, the amount returned. The ledger check runs after each.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { createWithdrawal, getAvailableBalance, getReservedBalance } from '../generated/openapi/sdk.gen.js';
import { sdkClient, sent } from '../src/testing/sdk-client.js';
import { startOnchainStack, type OnchainStack } from '../src/testing/onchain-stack.js';

describe.each(['redis', 'postgres'] as const)('onchain withdrawals (%s deployment)', (deployment) => {
  let s: OnchainStack;
  const available = async (api: number, token: string) =>
    (await sent(getAvailableBalance({ client: sdkClient(s.apis[api]!.baseUrl, token) }))).data?.available_micros;
  const reserved = async (api: number, token: string) =>
    (await sent(getReservedBalance({ client: sdkClient(s.apis[api]!.baseUrl, token) }))).data?.reserved_micros;
  beforeAll(async () => {
    s = await startOnchainStack({ label: `wd${deployment}`, deployment, apis: 2, chain: { blockTime: 1, confirmations: 2 } });
  }, 120_000);
  afterAll(async () => s?.stop());

  it('30 concurrent withdrawals from 3 users: 30 consecutive nonces, 30 transfers mined, each paid once', async () => {
    const users = await Promise.all([0, 1, 2].map(() => s.fundedUser(100_000_000n)));
    const jobs = users.flatMap((u, ui) =>
      Array.from({ length: 10 }, (_, i) => ({
        u,
        amount: BigInt(1_000_000 + ui * 100_000 + i),
        to: privateKeyToAccount(generatePrivateKey()).address,
      })),
    );
    const answers = await Promise.all(
      jobs.map((j, i) =>
        sent(
          createWithdrawal({
            client: sdkClient(s.apis[i % 2]!.baseUrl, j.u.token),
            body: { amount_micros: Number(j.amount), destination_address: j.to, idempotency_key: randomUUID() },
          }),
        ),
      ),
    );
    for (const a of answers) expect([200, 202]).toContain(a.status);
    const finals = await Promise.all(answers.map((a, i) => s.final(jobs[i]!.u, a.data!.operation_id, 120_000)));
    for (const f of finals)
      expect(f).toMatchObject({ status: 'success', failure_code: null, tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

    // Nonces: every withdrawal one, distinct, and with the 3 deposits one consecutive run of the settlement wallet.
    const ids = answers.map((a) => a.data!.operation_id);
    const rows = (
      await s.sql.query(
        `select operation_id, nonce::bigint as nonce from chain_transactions where operation_id = any($1::uuid[]) and attempt = 0`,
        [ids],
      )
    ).rows as Array<{ operation_id: string; nonce: string }>;
    expect(rows).toHaveLength(30);
    const nonces = rows.map((r) => Number(r.nonce)).sort((a, b) => a - b);
    expect(new Set(nonces).size).toBe(30);
    expect(nonces.at(-1)! - nonces[0]!).toBe(29);
    const all = (await s.sql.query(`select nonce::int as n from chain_transactions where attempt = 0 order by nonce`)).rows.map(
      (r) => r.n as number,
    );
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => all[0]! + i));
    expect(await s.chain.client.getTransactionCount({ address: s.chain.settlement.address })).toBe(all.at(-1)! + 1);

    // The chain: exactly one Transfer to each destination, of its amount, in the transaction the operation names.
    const logs = await s.chain.transfers();
    for (const [i, j] of jobs.entries()) {
      const paid = logs.filter((l) => l.to === j.to);
      expect(paid).toHaveLength(1);
      expect(paid[0]).toMatchObject({ from: s.chain.settlement.address, value: j.amount, txHash: finals[i]!.tx_hash });
    }
    // The ledger: each user paid out exactly what they asked for, nothing left reserved.
    for (const [ui, u] of users.entries()) {
      const paidOut = jobs.filter((j) => j.u === u).reduce((sum, j) => sum + j.amount, 0n);
      expect(await available(1, u.token), `user ${ui}`).toBe((100_000_000n - paidOut).toString());
      expect(await reserved(0, u.token)).toBe('0');
    }
    expect(await s.ledgerProblems()).toEqual([]);
    // Reconciliation: the settlement wallet holds exactly what the books owe (deposits in, withdrawals out).
    const check = await s.ledgerCheck();
    expect(check.code, check.output).toBe(0);
    expect(check.onchain).toMatchObject({
      deficit: false,
      surplus_micros: '0',
      in_flight_withdrawals_micros: '0',
      deposit_addresses_micros: '0',
    });
    expect(check.onchain!.held_micros).toBe(check.onchain!.liabilities_micros);
  }, 240_000);

  it('a withdrawal the token would refuse (a blacklisted destination) fails at once, with no transaction, the amount back in available', async () => {
    const u = await s.fundedUser(2_000_000n);
    // A destination Circle's blacklister has blacklisted: USDC's transfer to it would revert. (The zero address is
    // refused before anything is reserved: src/http/withdrawal-controls.int.test.ts.)
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await s.chain.usdc!.blacklist(to);
    const res = await sent(
      createWithdrawal({
        client: sdkClient(s.apis[0]!.baseUrl, u.token),
        body: { amount_micros: 1_500_000, destination_address: to, idempotency_key: randomUUID() },
      }),
    );
    expect([202, 422]).toContain(res.status);
    const id = (res.data?.operation_id ?? (res.error?.details as { operation_id?: string } | null)?.operation_id)!;
    expect(await s.final(u, id)).toMatchObject({ status: 'failed', failure_code: 'DESTINATION_BLACKLISTED', tx_hash: null });
    const txs = (await s.sql.query(`select receipt_status from chain_transactions where operation_id = $1`, [id])).rows;
    expect(txs).toEqual([]); // never signed: no gas burned on a transfer that would revert
    expect(await available(0, u.token)).toBe('2000000');
    expect(await reserved(0, u.token)).toBe('0');
    expect(await s.ledgerProblems()).toEqual([]);
    expect((await s.ledgerCheck()).onchain).toMatchObject({ deficit: false, surplus_micros: '0' });
  }, 120_000);

  it("ledger:check fails on a deficit: USDC leaving the settlement wallet behind the books' back", async () => {
    await s.fundedUser(1_000_000n);
    // Not a withdrawal: the settlement wallet's key sends USDC directly (as a leaked key would).
    await s.chain.transfer(s.chain.settlement, s.chain.faucet.address, 400_000n);
    const check = await s.ledgerCheck();
    expect(check.code).toBe(1);
    expect(check.onchain).toMatchObject({ deficit: true, surplus_micros: '-400000' });
    expect(check.output).toMatch(/DEFICIT/);
    // Put it back (the faucet mints) so the next scenario starts square.
    await s.chain.fund(s.chain.settlement.address, { usdcMicros: 400_000n });
    expect((await s.ledgerCheck()).code).toBe(0);
  }, 120_000);
});
