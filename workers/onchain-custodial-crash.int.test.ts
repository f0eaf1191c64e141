// Sweeps survive a crash (docs/settlement-custodial.md): the workers process SIGKILLed right after a sweep's
// top-up, or its transfer, was signed and stored but before it was broadcast. The restarted worker broadcasts
// the stored bytes (never a new signature), the sweep finishes, the deposit is credited once, the USDC
// reaches the settlement wallet once, and npm run ledger:check in onchain mode is clean.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startOnchainStack, type OnchainStack } from '../src/testing/onchain-stack.js';
import { available, credits, depositAddressOf, sweepsIdle, unresolvedSweepTransactions, until } from '../src/testing/custodial.js';

let s: OnchainStack;
beforeAll(async () => {
  s = await startOnchainStack({
    label: 'custcrash',
    deployment: 'redis',
    noWorkers: true,
    chain: { confirmations: 2 },
    env: { CHAIN_DEPOSIT_SCAN_EVERY_MS: '100', DEPOSIT_SWEEP_MIN_MICROS: '1', CHAIN_POLL_MS: '50' },
  });
}, 120_000);
afterAll(async () => s?.stop());

const sweepRows = async (address: string) =>
  (
    await s.sql.query(
      `select c.hash, c.from_address, c.receipt_status from chain_transactions c join deposit_sweeps w on w.id = c.sweep_id
        where w.address = $1 order by c.created_at`,
      [address],
    )
  ).rows as Array<{ hash: string; from_address: string; receipt_status: string | null }>;

describe('the workers process SIGKILLed mid-sweep', () => {
  it.each([
    ['after signing the top-up, before broadcasting it', 'sweep:afterTopupSign', 1],
    ['after signing the transfer, before broadcasting it', 'sweep:afterTransferSign', 2],
  ])(
    '%s: the restarted worker finishes the sweep from what was stored',
    async (_when, failpoint, storedAtKill) => {
      const u = await s.newUser();
      const address = await depositAddressOf(s, u);
      const sender = await s.chain.newWallet(5_000_000n);
      await s.chain.transfer(sender, address, 4_200_000n);
      const dying = await s.startWorkers({ FAILPOINTS: `${failpoint}=kill` });
      const exited = () => Promise.resolve(dying.proc.exitCode !== null || dying.proc.signalCode !== null);
      await until(s, 'the worker to die at the failpoint', exited, { mine: true });
      s.workers.splice(s.workers.indexOf(dying), 1);
      const atKill = await sweepRows(address);
      expect(atKill).toHaveLength(storedAtKill);
      const last = atKill.at(-1)!;
      await s.chain.anvil.mine(2);
      expect(await s.chain.client.getTransactionReceipt({ hash: last.hash as `0x${string}` }).catch(() => null)).toBeNull(); // never broadcast

      const worker = await s.startWorkers();
      onTestFinished(async () => {
        // A failed case must not leave its worker sweeping beside the next case's (which then never hits its failpoint).
        if (s.workers.includes(worker)) {
          await worker.stop('SIGKILL');
          s.workers.splice(s.workers.indexOf(worker), 1);
        }
      });
      await until(s, 'the sweep to finish', () => sweepsIdle(s), { mine: true, timeoutMs: 90_000 });
      // The stored transactions were broadcast as they were (no new signature), then the sweep went on:
      // one top-up and one transfer in all, each mined once.
      const after = await sweepRows(address);
      expect(after.slice(0, atKill.length).map((r) => r.hash)).toEqual(atKill.map((r) => r.hash));
      expect(after.map((r) => r.from_address)).toEqual([s.chain.settlement.address, address]);
      expect(after.map((r) => r.receipt_status)).toEqual(after.map(() => 'success'));
      expect(await unresolvedSweepTransactions(s)).toBe(0);
      expect((await s.chain.transfers(s.chain.settlement.address)).filter((l) => l.from === address)).toEqual([
        expect.objectContaining({ value: 4_200_000n }),
      ]);
      expect(await s.chain.balanceOf(address)).toBe(0n);
      expect((await credits(s)).filter((c) => c.user_id === u.userId)).toHaveLength(1);
      expect(await available(s, u)).toBe(4_200_000n);
      const check = await s.ledgerCheck();
      expect(check.code, check.output).toBe(0);
      expect(check.onchain).toMatchObject({ deficit: false, deposit_addresses_micros: '0', surplus_micros: '0' });
      expect(await worker.stop('SIGTERM')).toBe(0);
      s.workers.splice(s.workers.indexOf(worker), 1);
    },
    150_000,
  );
});
