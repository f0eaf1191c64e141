// What to do next with one chain transaction (docs/settlement.md, "One module for every chain transaction"): a
// pure function of what is stored (its signed attempts, all at one nonce), what the chain said (observe.ts),
// the fee policy and the clock. Withdrawals, pull deposits, sweep top-ups and transfers, nonce-gap fillers and
// cold-wallet sweeps all go through it; drive.ts asks the node, calls planNext, and acts. No I/O here, so every
// rule is property-tested without a node (plan.test.ts):
//   - a receipt with CHAIN_CONFIRMATIONS confirmations is recorded; a receipt without them waits; nothing mined
//     is ever replaced;
//   - a used nonce without a served receipt is never replaced, failed or refunded: it waits (receipt_missing)
//     and, after CHAIN_RECEIPT_REVIEW_AFTER_MS or on a block showing another transaction at the nonce, goes to an
//     operator (review);
//   - before the first signature, the preflight (what the chain would do with it) may make it wait (funds, gas,
//     a paused token) or fail at once with no transaction (a blacklisted destination);
//   - no attempt is ever signed above the fee cap; when the network needs more it waits at the cap (fee_cap);
//   - only the sender's lowest open nonce is replaced, only when the network's price is above the attempt's,
//     and only by at least the node's replacement minimum; transactions queued behind it wait; behind a nonce
//     with no stored transaction at all (a gap) nothing is replaced: it waits for an operator to fill the gap.
import { capFees, replacementFees, type FeeCap, type Fees } from './fees.js';
import type { PendingReason } from '../../../../db/repositories/chain.repository.js';
import type { NonceEvidence } from '../nonce-evidence.js';

export interface StoredAttempt {
  hash: string;
  nonce: bigint;
  attempt: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  createdAtMs: number;
}

/** Why a transaction waits (operations.pending_reason for deposits and withdrawals; logged for the others). */
export type WaitReason = Exclude<PendingReason, 'needs_review'>;

/** What the chain would do with the transaction before it is first signed (drive.ts asks the owner). */
export type Preflight = { ok: true } | { ok: false; wait: WaitReason } | { ok: false; fail: string };

export interface Observation {
  nowMs: number;
  head: bigint;
  /** A receipt the node served for one of the attempts (the newest attempt's first). */
  receipt: { hash: string; blockNumber: bigint; status: 'success' | 'reverted' } | null;
  /** The sender's count at the latest block is past the attempts' nonce. */
  nonceUsed: boolean;
  /** The lowest nonce of the sender that is stored, not yet used on chain, and has no recorded outcome. */
  lowestOpenNonce: bigint | null;
  /**
   * The sender's count at the latest block when it is below lowestOpenNonce: nonces in between have no stored
   * transaction, so nothing above them can be mined (a nonce gap: docs/operations.md, "A nonce gap"); else null.
   */
  gapFrom: bigint | null;
  /** The node's fee estimate now. */
  estimate: Fees;
  /** Where the transaction at the used nonce was found (nonce-evidence.ts); only looked for when nonceUsed. */
  evidence: NonceEvidence | null;
  /** Before the first signature only. */
  preflight: Preflight | null;
}

export interface Policy {
  confirmations: number;
  replaceAfterMs: number;
  receiptReviewAfterMs: number;
  cap: FeeCap;
}

export type Step =
  | { do: 'sign'; fees: Fees; capped: boolean }
  | { do: 'fail'; code: string }
  | { do: 'record'; hash: string; status: 'success' | 'reverted'; blockNumber: bigint }
  | { do: 'wait'; reason: WaitReason }
  | { do: 'replace'; fees: Fees; replaces: string; capped: boolean }
  | { do: 'review'; evidence: NonceEvidence | null };

/**
 * The next step. `unprovenSinceMs`: when this transaction was first seen with its nonce used and no receipt
 * (persisted by the owner; null when it was not).
 */
export function planNext(attempts: readonly StoredAttempt[], obs: Observation, policy: Policy, unprovenSinceMs: number | null): Step {
  if (obs.receipt) {
    const depth = obs.head - obs.receipt.blockNumber + 1n;
    if (depth >= BigInt(policy.confirmations)) return { do: 'record', ...obs.receipt };
    return { do: 'wait', reason: 'confirmations' };
  }
  const latest = attempts.at(-1);
  if (!latest) {
    if (obs.preflight && !obs.preflight.ok)
      return 'fail' in obs.preflight ? { do: 'fail', code: obs.preflight.fail } : { do: 'wait', reason: obs.preflight.wait };
    const { fees, capped } = capFees(obs.estimate, policy.cap);
    return { do: 'sign', fees, capped };
  }
  if (obs.nonceUsed) {
    if (obs.evidence?.kind === 'foreign') return { do: 'review', evidence: obs.evidence };
    if (unprovenSinceMs !== null && obs.nowMs - unprovenSinceMs >= policy.receiptReviewAfterMs)
      return { do: 'review', evidence: obs.evidence };
    return { do: 'wait', reason: 'receipt_missing' };
  }
  if (obs.gapFrom !== null) return { do: 'wait', reason: 'nonce_gap' };
  if (obs.lowestOpenNonce !== null && latest.nonce > obs.lowestOpenNonce) return { do: 'wait', reason: 'queued' };
  const wanted = obs.estimate.maxFeePerGas > latest.maxFeePerGas || obs.estimate.maxPriorityFeePerGas > latest.maxPriorityFeePerGas;
  if (!wanted) return { do: 'wait', reason: 'mempool' };
  if (obs.nowMs - latest.createdAtMs < policy.replaceAfterMs) return { do: 'wait', reason: 'mempool' };
  const next = replacementFees(latest, obs.estimate, policy.cap);
  if (!next) return { do: 'wait', reason: 'fee_cap' };
  return { do: 'replace', fees: next.fees, replaces: latest.hash, capped: next.capped };
}
