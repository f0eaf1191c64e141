// Issue 33's nonce gap and parked sweeps against Circle's USDC on anvil (an API and a workers process on PostgreSQL
// + Redis):
//   - a gap in the settlement wallet's nonces (as a database restore that lost rows leaves it: chain_nonces ahead of
//     every stored transaction) holds the withdrawals signed after it in the node's queue; they wait as
//     `nonce_gap`, nothing is replaced behind the gap, and the runbook's command (docs/operations.md, "A nonce
//     gap": `npm run chain:fill-nonce-gap`) fills it, after which each queued withdrawal is paid exactly once;
//   - a custodial deposit address the token blacklists after its deposit is credited parks its sweep with a
//     reason: no transfer, and no gas top-up sent for it afterwards (docs/settlement-custodial.md).
// `ledger:check` is clean after each.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { available, depositAddressOf, until } from '../src/testing/custodial.js';
import { startOnchainStack, type OnchainStack } from '../src/testing/onchain-stack.js';

const USDC = 1_000_000;
const OPERATOR_TOKEN = `custody-gap-operator-${randomUUID()}`;
let s: OnchainStack;

/** GET /v1/admin/status's `chain` (issue 33 item 9), as the operator sees it. */
async function chainStatus(): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.apis[0]!.baseUrl}/v1/admin/status`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  const body = (await res.json()) as { chain?: Record<string, unknown>; components: Array<{ kind: string; state: string }> };
  expect(body.components.find((c) => c.kind === 'chain')?.state).toBe(body.chain?.state);
  return body.chain!;
}

beforeAll(async () => {
  s = await startOnchainStack({
    label: 'custodygap',
    deployment: 'redis',
    chain: { blockTime: 1, confirmations: 3 },
    env: {
      CHAIN_WAIT_RECHECK_MS: '300',
      CHAIN_REPLACE_AFTER_MS: '1000',
      CHAIN_DEPOSIT_SCAN_EVERY_MS: '300',
      CHAIN_RECONCILE_EVERY_MS: '1000',
      OPERATOR_TOKEN,
    },
  });
}, 120_000);
afterAll(async () => s?.stop());

const op = async (id: string) =>
  (await s.sql.query(`select status, pending_reason from operations where id = $1`, [id])).rows[0] as {
    status: string;
    pending_reason: string | null;
  };

describe('a nonce gap (issue 33 item 3)', () => {
  it('withdrawals behind a gap wait as nonce_gap; the runbook command fills it and each is then paid once', async () => {
    const u = await s.fundedUser(10n * BigInt(USDC));
    const settlement = s.chain.settlement.address;
    const chainNonce = await s.chain.client.getTransactionCount({ address: settlement, blockTag: 'latest' });
    // Two nonces taken with no stored transaction (what a restore that lost rows leaves).
    const moved = await s.sql.query(`update chain_nonces set next_nonce = $2 where lower(address) = lower($1)`, [
      settlement,
      chainNonce + 2,
    ]);
    expect(moved.rowCount).toBe(1);
    const a = await s.withdraw(u, 2 * USDC);
    const b = await s.withdraw(u, 3 * USDC);
    for (const w of [a, b]) await until(s, `${w.id} waiting behind the gap`, async () => (await op(w.id)).pending_reason === 'nonce_gap');
    await new Promise((r) => setTimeout(r, 3000)); // three replacement periods: nothing is replaced behind a gap
    for (const w of [a, b]) {
      expect(await op(w.id)).toEqual({ status: 'pending', pending_reason: 'nonce_gap' });
      expect(await s.sentRows(w.id)).toHaveLength(1);
    }
    expect((await s.sentRows(a.id))[0]!.nonce).toBe(chainNonce + 2);
    // The operator's view: the gap and what waits behind it, from the workers' stored observation.
    await until(s, 'the status to show the gap', async () => (await chainStatus()).nonce_gap === 2);
    expect(await chainStatus()).toMatchObject({
      state: 'degraded',
      nonce_gap: 2,
      withdrawals_waiting: expect.arrayContaining([{ reason: 'nonce_gap', count: 2 }]),
      detail: expect.stringContaining('chain:fill-nonce-gap'),
    });

    const dry = await s.script('scripts/chain-fill-nonce-gap.ts', ['--dry-run']);
    expect(dry.output).toContain(`"from":"${chainNonce}"`);
    expect(dry.code).toBe(1); // a gap is left after a dry run
    const fill = await s.script('scripts/chain-fill-nonce-gap.ts', ['--timeout-ms=120000']);
    expect(fill.code, fill.output).toBe(0);
    const fillers = (
      await s.sql.query(
        `select nonce::int as nonce, receipt_status from chain_transactions where purpose = 'filler' and lower(from_address) = lower($1) order by nonce`,
        [settlement],
      )
    ).rows;
    expect(fillers, fill.output).toEqual([
      { nonce: chainNonce, receipt_status: 'success' },
      { nonce: chainNonce + 1, receipt_status: 'success' },
    ]);
    expect(await s.paidOnceProblems(u, a.id, a.to, 2 * USDC)).toEqual([]);
    expect(await s.paidOnceProblems(u, b.id, b.to, 3 * USDC)).toEqual([]);
    await until(s, 'the status to clear', async () => (await chainStatus()).state === 'ok');
    // Run again: no gap, nothing signed.
    const again = await s.script('scripts/chain-fill-nonce-gap.ts');
    expect(again.code, again.output).toBe(0);
    expect((await s.sql.query(`select count(*)::int as n from chain_transactions where purpose = 'filler'`)).rows[0].n).toBe(2);
  }, 240_000);
});

describe('a sweep the token refuses (issue 33 item 6)', () => {
  it('a blacklisted deposit address is credited, its sweep parks with a reason, and no top-up is sent for it after', async () => {
    const u = await s.newUser();
    const address = getAddress(await depositAddressOf(s, u));
    const sender = await s.chain.newWallet(5n * BigInt(USDC));
    await s.chain.transfer(sender, address, 4n * BigInt(USDC));
    await s.chain.usdc!.blacklist(address); // mined before the transfer has its three confirmations
    await until(s, 'the deposit credited', async () => (await available(s, u)) === 4n * BigInt(USDC));
    const parkedRow = async () =>
      (await s.sql.query(`select parked_reason from deposit_addresses where lower(address) = lower($1)`, [address])).rows[0] as {
        parked_reason: string | null;
      };
    await until(s, 'the address parked', async () => (await parkedRow()).parked_reason !== null);
    expect((await parkedRow()).parked_reason).toMatch(/blacklist/i);
    await until(s, 'the status to show the parked sweep', async () => (await chainStatus()).parked_sweeps === 1);
    expect((await chainStatus()).state).toBe('degraded');
    const sweepTxs = async () =>
      (
        await s.sql.query(
          `select count(*)::int as n from chain_transactions c join deposit_sweeps w on w.id = c.sweep_id where lower(w.address) = lower($1)`,
          [address],
        )
      ).rows[0].n as number;
    const topUps = await s.chain.client.getBalance({ address });
    const before = await sweepTxs();
    expect(before).toBe(0); // the dry run refused before any top-up or transfer was signed
    await new Promise((r) => setTimeout(r, 5000)); // many sweep ticks
    expect(await sweepTxs()).toBe(before);
    expect(await s.chain.client.getBalance({ address })).toBe(topUps);
    expect(await s.chain.balanceOf(address)).toBe(4n * BigInt(USDC)); // still there, credited once
    expect(await s.ledgerProblems()).toEqual([]);
    const check = await s.ledgerCheck();
    expect(check.code, check.output).toBe(0);
  }, 180_000);
});
