// Demo settlement: no chain. Transaction hashes are deterministic (0x + sha256(operation id)), so a
// re-run of a settlement yields the same hash. Each user has a finite demo onchain balance
// (DEMO_ONCHAIN_BALANCE_MICROS): a deposit beyond what is left of it (the limit minus the user's
// successful deposits) fails with SETTLEMENT_FAILED. Withdrawals settle, except to DEMO_FAILING_DESTINATION,
// the demo's stand-in for a transfer that reverts on a real chain (so the refund path can be seen in demo mode;
// the zero address, which USDC's transfer rejects, is refused before anything is reserved: src/domain/money/requests.ts).
import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import type { Em } from '../../db/orm.js';
import type { SettlementAdapter, SettlementRequest, SettlementResult } from './adapter.js';
import { repos } from '../../db/repos.js';

export const DEMO_CHAIN_ID = 84532; // Base Sepolia: demo addresses never hold mainnet funds

/** Demo settlement fails every withdrawal to this address with SETTLEMENT_FAILED (as a reverted transfer would). */
export const DEMO_FAILING_DESTINATION = '0x000000000000000000000000000000000000fa11';

export const demoTxHash = (operationId: string) => `0x${createHash('sha256').update(operationId).digest('hex')}`;

/** A deterministic, checksummed per-user demo address (no key exists for it: never send real funds). */
export const demoDepositAddress = (userId: string) =>
  getAddress(`0x${createHash('sha256').update(`crfq demo deposit wallet:${userId}`).digest('hex').slice(0, 40)}`);

export function createDemoSettlement(opts: { onchainBalanceMicros: bigint }): SettlementAdapter {
  return {
    mode: 'demo',
    async settle(em: Em, reqs: readonly SettlementRequest[]): Promise<SettlementResult[]> {
      // Serialise each user's deposit settlements (their rows locked in id order) so two of them cannot both
      // spend the same demo balance; within a batch, each deposit spends what the earlier ones left.
      const depositors = [...new Set(reqs.filter((r) => r.kind === 'deposit').map((r) => r.userId))];
      const remaining = new Map<string, bigint>();
      if (depositors.length) {
        for (const r of await repos(em).settlement.lockUsersWithDepositTotals(depositors)) {
          remaining.set(r.user_id, opts.onchainBalanceMicros - r.total);
        }
      }
      return reqs.map((req): SettlementResult => {
        if (req.kind === 'withdraw') {
          if (req.destinationAddress?.toLowerCase() === DEMO_FAILING_DESTINATION) return { ok: false, failureCode: 'SETTLEMENT_FAILED' };
          return { ok: true, txHash: demoTxHash(req.operationId) };
        }
        const left = remaining.get(req.userId) ?? 0n;
        if (req.amount > left) return { ok: false, failureCode: 'SETTLEMENT_FAILED' };
        remaining.set(req.userId, left - req.amount);
        return { ok: true, txHash: demoTxHash(req.operationId) };
      });
    },
    depositWallet(_em, userId) {
      return Promise.resolve({ address: demoDepositAddress(userId), chainId: DEMO_CHAIN_ID, asset: 'USDC', mode: 'demo' });
    },
  };
}
