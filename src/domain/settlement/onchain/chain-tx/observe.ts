// What the chain says about one chain transaction, for planNext (plan.ts): the head, a served receipt, whether the
// sender's nonce is used, the sender's lowest open nonce, the fee estimate when the plan can use it, where the
// transaction at a used nonce is (nonce-evidence.ts, at most every EVIDENCE_EVERY_MS), and before the first
// signature the owner's preflight. Only reads; a node that does not answer throws (the caller retries).
import type { Address } from 'viem';
import type { AttemptRow } from '../../../../db/repositories/chain-tx.repository.js';
import type { Em } from '../../../../db/orm.js';
import type { Chain } from '../../../../adapters/chain/chain.js';
import { findAtNonce, type NonceEvidence } from '../nonce-evidence.js';
import { receiptOf } from './node.js';
import type { Fees } from './fees.js';
import type { Observation, Policy, Preflight } from './plan.js';
import { repos } from '../../../../db/repos.js';

/** The deeper search for the transaction at a used nonce (by hash, by block) runs at most this often per nonce. */
export const EVIDENCE_EVERY_MS = 30_000;
const evidenceCache = new Map<string, { at: number; e: NonceEvidence }>();

async function evidenceFor(
  chain: Chain,
  sender: Address,
  attempts: readonly AttemptRow[],
  head: bigint,
  now: number,
): Promise<NonceEvidence> {
  const key = `${sender}:${attempts[0]!.nonce}`;
  const cached = evidenceCache.get(key);
  if (cached && now - cached.at < EVIDENCE_EVERY_MS) return cached.e;
  const e = await findAtNonce(
    chain,
    sender,
    attempts[0]!.nonce,
    attempts.map((a) => a.hash),
    head,
  );
  if (evidenceCache.size > 10_000) evidenceCache.clear();
  evidenceCache.set(key, { at: now, e });
  return e;
}

/** The node's EIP-1559 estimate now. */
export async function estimateFees(chain: Chain): Promise<Fees> {
  const f = await chain.client.estimateFeesPerGas();
  return { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
}

export interface ObserveInput {
  em: Em;
  chain: Chain;
  sender: Address;
  attempts: readonly AttemptRow[];
  policy: Policy;
  now: number;
  /** Before the first signature: what the chain would do with it (the owner's checks), given the fee estimate. */
  preflight?: (estimate: Fees) => Promise<Preflight>;
}

export async function observe(i: ObserveInput): Promise<Observation> {
  const { chain, attempts, now } = i;
  const head = await chain.client.getBlockNumber({ cacheTime: 0 });
  const base = { nowMs: now, head, receipt: null, nonceUsed: false, lowestOpenNonce: null, gapFrom: null, evidence: null, preflight: null };
  if (!attempts.length) {
    const estimate = await estimateFees(chain);
    return { ...base, estimate, preflight: i.preflight ? await i.preflight(estimate) : { ok: true } };
  }
  for (const a of [...attempts].reverse()) {
    const r = await receiptOf(chain, a.hash);
    if (r) {
      const receipt = {
        hash: a.hash,
        blockNumber: r.blockNumber,
        status: r.status === 'success' ? ('success' as const) : ('reverted' as const),
      };
      return { ...base, receipt, estimate: feesOf(attempts.at(-1)!) };
    }
  }
  const latest = attempts.at(-1)!;
  const count = BigInt(await chain.client.getTransactionCount({ address: i.sender, blockTag: 'latest' }));
  if (count > latest.nonce) {
    return { ...base, nonceUsed: true, estimate: feesOf(latest), evidence: await evidenceFor(chain, i.sender, attempts, head, now) };
  }
  const repo = repos(i.em).chainTx;
  const lowestOpenNonce = await repo.lowestOpenNonce(chain.settings.chainId, i.sender, count);
  // A nonce below ours with nothing stored at all (a lagging node's count only covers recorded ones: not a gap).
  const gapFrom = lowestOpenNonce === null ? null : await repo.firstUnstoredNonce(chain.settings.chainId, i.sender, count, lowestOpenNonce);
  // The estimate is only worth a request when the plan could replace: the lowest open nonce, old enough, no gap.
  const due =
    gapFrom === null &&
    (lowestOpenNonce === null || latest.nonce <= lowestOpenNonce) &&
    now - latest.created_at_ms >= i.policy.replaceAfterMs;
  return { ...base, lowestOpenNonce, gapFrom, estimate: due ? await estimateFees(chain) : feesOf(latest) };
}

export const feesOf = (a: Pick<AttemptRow, 'max_fee_per_gas' | 'max_priority_fee_per_gas'>): Fees => ({
  maxFeePerGas: a.max_fee_per_gas,
  maxPriorityFeePerGas: a.max_priority_fee_per_gas,
});
