// Custodial deposits against a real local chain (docs/settlement-custodial.md): two API processes and two
// workers processes (two listeners, two sweepers) on PostgreSQL + Redis, and again on the PostgreSQL-only
// deployment (there the cases that go through its queue), with CHAIN_CONFIRMATIONS=3. A plain token transfer into a user's deposit address is credited once
// it has 3 confirmations and not before; 20 transfers mined in one block are each credited once; a listener
// stopped for 200 blocks catches up (eth_getLogs in ranges of 50) with no miss and no double; a transfer that a
// reorganisation removes before its confirmations credits nothing. A credit's confirmations (GET
// /v1/users/operations/{operation_id}) grow with the listener's scans. Deposited USDC is swept into the settlement
// wallet (ETH top-up, then transfer). After each: the ledger check is clean and the chain holds what users own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createWithdrawal, getOperation } from '../generated/openapi/sdk.gen.js';
import { sdkClient, sent } from '../src/testing/sdk-client.js';
import { startOnchainStack, type OnchainStack } from '../src/testing/onchain-stack.js';
import {
  available,
  credits,
  cursorOf,
  depositAddressOf,
  scannedToHead,
  sweepsIdle,
  transfersInOneBlock,
  unresolvedSweepTransactions,
  until,
} from '../src/testing/custodial.js';

const CONFIRMATIONS = 3;

describe.each(['redis', 'postgres'] as const)('custodial deposits (%s deployment)', (deployment) => {
  // The listener's and the sweeper's own logic (ranges, catch-up, reorganisations, dust) does not depend on the
  // queue backend: those cases run on the Redis deployment only; the PostgreSQL-only deployment runs the cases
  // that go through its queue and its two processes (address hand-out, a credit and its sweep). Issue 40: CI time.
  const redisOnly = (name: string, fn: () => Promise<void>, timeoutMs?: number) => deployment === 'redis' && it(name, fn, timeoutMs);
  let s: OnchainStack;
  let baseline: bigint;
  beforeAll(async () => {
    s = await startOnchainStack({
      label: `cust${deployment}`,
      deployment,
      apis: 2,
      // The settlement wallet starts with 50 USDC of its own (withdrawals may be paid before a sweep lands).
      chain: { confirmations: CONFIRMATIONS, settlementUsdcMicros: 50_000_000n },
      env: { CHAIN_DEPOSIT_SCAN_EVERY_MS: '100', CHAIN_LOG_BLOCK_RANGE: '50', DEPOSIT_SWEEP_MIN_MICROS: '1000000', CHAIN_POLL_MS: '50' },
    });
    await s.startWorkers(); // a second listener and sweeper
    baseline = 50_000_000n;
  }, 120_000);
  afterAll(async () => s?.stop());

  /**
   * `npm run ledger:check` in onchain mode is clean: the books balance, and the chain (settlement wallet + USDC
   * still in credited deposit addresses) holds what the books owe plus the settlement wallet's own 50 USDC.
   */
  const booksClean = async () => {
    const check = await s.ledgerCheck();
    expect(check.code, check.output).toBe(0);
    expect(check.onchain).toMatchObject({ deficit: false, surplus_micros: baseline.toString() });
    return check.onchain!;
  };
  /** Mines until every due sweep is done; then the deposit addresses hold nothing (or only `dust`). */
  const swept = async (dust = 0n) => {
    await until(s, 'every sweep to finish', () => sweepsIdle(s), { mine: true, timeoutMs: 90_000 });
    expect(await unresolvedSweepTransactions(s)).toBe(0);
    expect((await booksClean()).deposit_addresses_micros).toBe(dust.toString());
  };

  it('hands out one custodial address per user, once, even to concurrent first calls on two processes', async () => {
    const [a, b] = await Promise.all([s.newUser(), s.newUser()]);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => depositAddressOf(s, i % 3 ? a : b, i % 2)));
    const ofA = answers.filter((_, i) => i % 3);
    expect(new Set(ofA).size).toBe(1);
    expect(new Set(answers.filter((_, i) => !(i % 3))).size).toBe(1);
    expect(ofA[0]).not.toBe(answers[0]);
    const { rows } = await s.sql.query(`select user_id::text, address from deposit_addresses where user_id = any($1::uuid[])`, [
      [a.userId, b.userId],
    ]);
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.user_id === a.userId)!.address).toBe(ofA[0]);
  });

  it('credits a plain transfer once it has the confirmations, not before, and sweeps it into the settlement wallet', async () => {
    const u = await s.newUser();
    const address = await depositAddressOf(s, u);
    const sender = await s.chain.newWallet(50_000_000n);
    const before = await s.chain.balanceOf(s.chain.settlement.address);
    const hash = await s.chain.transfer(sender, address, 7_500_000n);
    const block = (await s.chain.client.getTransactionReceipt({ hash })).blockNumber;
    // 1 confirmation, then 2: the listener has scanned every confirmed block, and nothing is credited.
    for (let mined = 0; mined < CONFIRMATIONS - 1; mined++) {
      expect(await scannedToHead(s, CONFIRMATIONS)).toBe(block - BigInt(CONFIRMATIONS - 1 - mined));
      expect((await credits(s)).filter((c) => c.tx_hash === hash)).toEqual([]);
      expect(await available(s, u)).toBe(0n);
      await s.chain.anvil.mine(1);
    }
    // The third confirmation: credited, once, as a deposit operation with its tx_hash.
    await until(s, 'the credit', async () => (await available(s, u)) === 7_500_000n);
    const mine = (await credits(s)).filter((c) => c.tx_hash === hash);
    expect(mine).toEqual([expect.objectContaining({ user_id: u.userId, amount: '7500000', log_index: expect.any(Number) })]);
    const op = await sent(getOperation({ client: sdkClient(s.apis[1]!.baseUrl, u.token), path: { operation_id: mine[0]!.operation_id } }));
    expect(op.data).toMatchObject({ kind: 'deposit', status: 'success', amount_micros: '7500000', tx_hash: hash, tx_hashes: [hash] });
    // Its confirmations grow as the listener scans on (counted from its cursor: the API never asks the node).
    await s.chain.anvil.mine(4);
    // The sweep's own transactions mine blocks meanwhile (automine), so the cursor may move between the two reads.
    const head = (await scannedToHead(s, CONFIRMATIONS)) + BigInt(CONFIRMATIONS - 1);
    const deeper = await sent(
      getOperation({ client: sdkClient(s.apis[0]!.baseUrl, u.token), path: { operation_id: mine[0]!.operation_id } }),
    );
    const later = (await cursorOf(s)) + BigInt(CONFIRMATIONS - 1);
    expect(deeper.data?.confirmations).toBeGreaterThanOrEqual(Number(head - block + 1n));
    expect(deeper.data?.confirmations).toBeLessThanOrEqual(Number(later - block + 1n));
    await booksClean();
    // Swept: the address's USDC is now the settlement wallet's, moved by one transfer from the address.
    await swept();
    expect(await s.chain.balanceOf(address)).toBe(0n);
    expect(await s.chain.balanceOf(s.chain.settlement.address)).toBe(before + 7_500_000n);
    const moves = (await s.chain.transfers(s.chain.settlement.address)).filter((l) => l.from === address);
    expect(moves).toEqual([expect.objectContaining({ value: 7_500_000n })]);
    const { rows } = await s.sql.query(`select status, amount::text from deposit_sweeps where address = $1`, [address]);
    expect(rows).toEqual([{ status: 'done', amount: '7500000' }]);
    expect(await available(s, u)).toBe(7_500_000n);
  }, 150_000);

  redisOnly(
    'credits 20 transfers mined in one block, each once; sweep top-ups and withdrawals share the settlement nonces',
    async () => {
      const users = await Promise.all([0, 1, 2, 3].map(() => s.newUser()));
      const addresses = await Promise.all(users.map((u) => depositAddressOf(s, u)));
      const sender = await s.chain.newWallet(100_000_000n);
      const items = Array.from({ length: 20 }, (_, i) => ({ to: addresses[i % 4]!, amount: BigInt(1_000_000 + i) }));
      const { hashes, blocks } = await transfersInOneBlock(s, sender, items);
      expect(blocks.size).toBe(1);
      await s.chain.anvil.mine(CONFIRMATIONS - 1);
      await until(s, '20 credits', async () => (await credits(s)).filter((c) => hashes.includes(c.tx_hash as `0x${string}`)).length === 20);
      await scannedToHead(s, CONFIRMATIONS);
      const mine = (await credits(s)).filter((c) => hashes.includes(c.tx_hash as `0x${string}`));
      expect(new Set(mine.map((c) => c.tx_hash)).size).toBe(20);
      for (const [i, u] of users.entries()) {
        const expected = items.filter((it) => it.to === addresses[i]).reduce((t, it) => t + it.amount, 0n);
        expect(await available(s, u)).toBe(expected);
      }
      // Withdrawals while the 4 sweeps top their addresses up: both take the settlement wallet's nonces from the database.
      const answers = await Promise.all(
        users.map((u, i) =>
          sent(
            createWithdrawal({
              client: sdkClient(s.apis[i % 2]!.baseUrl, u.token),
              body: {
                amount_micros: 1_000_000,
                destination_address: privateKeyToAccount(generatePrivateKey()).address,
                idempotency_key: randomUUID(),
              },
            }),
          ),
        ),
      );
      await until(
        s,
        'the withdrawals',
        async () => {
          const finals = await Promise.all(
            answers.map(
              async (a, i) =>
                (
                  await sent(
                    getOperation({ client: sdkClient(s.apis[0]!.baseUrl, users[i]!.token), path: { operation_id: a.data!.operation_id } }),
                  )
                ).data?.status,
            ),
          );
          return finals.every((f) => f === 'success');
        },
        { mine: true, timeoutMs: 90_000 },
      );
      await swept();
      const { rows } = await s.sql.query(
        `select nonce::int as n, bool_or(sweep_id is not null) as sweep from chain_transactions where from_address = $1 group by nonce order by nonce`,
        [s.chain.settlement.address],
      );
      expect(rows.map((r) => r.n)).toEqual(rows.map((_, i) => rows[0].n + i));
      expect(rows.filter((r) => r.sweep).length).toBeGreaterThanOrEqual(4);
      expect(rows.filter((r) => !r.sweep).length).toBeGreaterThanOrEqual(4);
      expect(await s.chain.client.getTransactionCount({ address: s.chain.settlement.address })).toBe(rows.at(-1).n + 1);
    },
    180_000,
  );

  redisOnly(
    'a listener stopped for 200 blocks catches up with no miss and no double',
    async () => {
      const users = await Promise.all([0, 1].map(() => s.newUser()));
      const addresses = await Promise.all(users.map((u) => depositAddressOf(s, u)));
      const sender = await s.chain.newWallet(100_000_000n);
      await until(
        s,
        'the listener to be idle',
        async () => (await cursorOf(s)) >= (await s.chain.client.getBlockNumber({ cacheTime: 0 })) - 2n,
      );
      for (const w of s.workers.splice(0)) expect(await w.stop('SIGTERM')).toBe(0);
      const stoppedAt = await cursorOf(s);
      const sent: Array<{ to: Address; amount: bigint }> = [];
      for (let i = 0; i < 10; i++) {
        const item = { to: addresses[i % 2]!, amount: BigInt(2_000_000 + i) };
        await s.chain.transfer(sender, item.to, item.amount);
        sent.push(item);
        await s.chain.anvil.mine(20);
      }
      expect((await s.chain.client.getBlockNumber({ cacheTime: 0 })) - stoppedAt).toBeGreaterThanOrEqual(200n);
      await Promise.all([s.startWorkers(), s.startWorkers()]);
      await scannedToHead(s, CONFIRMATIONS);
      for (const [i, u] of users.entries()) {
        expect(await available(s, u)).toBe(sent.filter((it) => it.to === addresses[i]).reduce((t, it) => t + it.amount, 0n));
      }
      const all = await credits(s);
      expect(new Set(all.map((c) => `${c.tx_hash}:${c.log_index}`)).size).toBe(all.length);
      expect(all.filter((c) => users.some((u) => u.userId === c.user_id))).toHaveLength(10);
      await swept();
    },
    180_000,
  );

  redisOnly(
    'a transfer that a reorganisation removes before its confirmations credits nothing',
    async () => {
      const u = await s.newUser();
      const address = await depositAddressOf(s, u);
      const sender = await s.chain.newWallet(10_000_000n);
      await until(s, 'no sweep under way', () => sweepsIdle(s), { mine: true });
      const snapshot = await s.chain.anvil.rpc<string>('evm_snapshot');
      const hash = await s.chain.transfer(sender, address, 3_000_000n);
      await s.chain.anvil.mine(CONFIRMATIONS - 2); // one confirmation short
      // Scanned through the last confirmed block, and not one block further (the transfer's is unconfirmed).
      const confirmed = await scannedToHead(s, CONFIRMATIONS);
      expect(await cursorOf(s)).toBe(confirmed);
      await s.chain.anvil.rpc('evm_revert', [snapshot]); // the transfer's blocks are gone
      await s.chain.anvil.mine(CONFIRMATIONS + 2); // a longer chain without it
      await scannedToHead(s, CONFIRMATIONS);
      expect(await s.chain.client.getTransactionReceipt({ hash }).catch(() => null)).toBeNull();
      expect((await credits(s)).filter((c) => c.tx_hash === hash || c.user_id === u.userId)).toEqual([]);
      expect(await available(s, u)).toBe(0n);
      await booksClean();
    },
    120_000,
  );

  redisOnly(
    'leaves a deposit below DEPOSIT_SWEEP_MIN_MICROS in its address, where the reconciliation counts it',
    async () => {
      const u = await s.newUser();
      const address = await depositAddressOf(s, u);
      const sender = await s.chain.newWallet(1_000_000n);
      await s.chain.transfer(sender, address, 400_000n);
      await s.chain.anvil.mine(CONFIRMATIONS - 1);
      await until(s, 'the credit', async () => (await available(s, u)) === 400_000n);
      await swept(400_000n);
      expect(await s.chain.balanceOf(address)).toBe(400_000n);
    },
    120_000,
  );
});
