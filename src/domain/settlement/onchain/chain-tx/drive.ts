// One step of one chain transaction (docs/settlement.md, "One module for every chain transaction"): re-broadcast
// the stored bytes, ask the node (observe.ts), let the plan decide (plan.ts), act. Every purpose goes through
// here: a deposit or withdrawal (operation-owner.ts), a sweep's top-up and transfer (sweeps.ts), a nonce-gap
// filler (gap.ts), a cold-wallet sweep. What differs is the owner (TxOwner): which rows are its attempts, which row
// it locks to sign, what the transaction is, what the chain must allow before it is signed, and what a wait, a
// review, a failure or an outcome means for it.
//   sign: in ONE database transaction holding the owner's row lock, the sender's nonce is taken (chain_nonces) or
//   the attempts' nonce reused (a replacement), the transaction signed (the signer may be a local key or an
//   external signer) and stored; only then broadcast, and after any restart the stored bytes again, never a new
//   signature for the same step. A signer that does not sign (src/adapters/chain/remote-signer.ts) leaves nothing stored: the owner
//   waits (`signer`).
import { keccak256, type Address, type Hex } from 'viem';
import type { Chain } from '../../../../adapters/chain/chain.js';
import { SignerUnavailable, type ChainSigner } from '../../../../adapters/chain/remote-signer.js';
import type { Em } from '../../../../db/orm.js';
import { type AttemptRow, type TxOwnerColumns } from '../../../../db/repositories/chain-tx.repository.js';
import { failpoint } from '../../../../failpoints.js';
import type { Logger } from '../../../../logger.js';
import type { NonceEvidence } from '../nonce-evidence.js';
import type { Fees } from './fees.js';
import { sendRaw } from './node.js';
import { refusalLogLevel } from './refusals.js';
import { observe } from './observe.js';
import { planNext, type Policy, type Preflight, type Step, type StoredAttempt, type WaitReason } from './plan.js';
import { repos } from '../../../../db/repos.js';

export type { ChainSigner };

/** The transaction an owner wants, the same for every attempt but the fees. */
export interface TxSpec {
  to: Address;
  data?: Hex;
  value: bigint;
  gas: bigint;
}

export interface TxOwner {
  readonly columns: TxOwnerColumns;
  readonly signer: ChainSigner;
  /** Log fields naming it (operation_id, sweep_id...). */
  readonly fields: Record<string, string>;
  /** The failpoint hit after its attempt is stored, before it is broadcast (src/failpoints.ts); default chain:afterSign. */
  readonly afterSignFailpoint?: string;
  /** A nonce it must use (a gap filler); otherwise the sender's next is allocated at the first signature. */
  readonly fixedNonce?: bigint;
  spec(): TxSpec;
  /** Its open attempts (one nonce), first first; [] before the first signature. */
  attempts(em: Em): Promise<AttemptRow[]>;
  /** In `tx`, under its row lock: whether it still wants a signature now that `seen` attempts were read; the new attempt's number. */
  lockToSign(tx: Em, seen: readonly AttemptRow[]): Promise<{ attempt: number } | null>;
  /** Before the first signature: what the chain would do with it. */
  preflight?(em: Em, estimate: Fees): Promise<Preflight>;
  /** After the outcome is recorded on the attempt's row. */
  onRecorded?(em: Em, hash: string, status: 'success' | 'reverted'): Promise<void>;
  onWait?(em: Em, reason: WaitReason): Promise<void>;
  onReview(em: Em, evidence: NonceEvidence | null): Promise<void>;
  onFail?(em: Em, code: string): Promise<void>;
}

export interface TxEnv {
  chain: Chain;
  policy: Policy;
  log: Logger;
}

const attemptOf = (a: AttemptRow): StoredAttempt => ({
  hash: a.hash,
  nonce: a.nonce,
  attempt: a.attempt,
  maxFeePerGas: a.max_fee_per_gas,
  maxPriorityFeePerGas: a.max_priority_fee_per_gas,
  createdAtMs: a.created_at_ms,
});

/** Signs and stores the next attempt under the owner's lock; null when the owner no longer wants it or someone moved first. */
async function signAndStore(
  em: Em,
  env: TxEnv,
  owner: TxOwner,
  seen: readonly AttemptRow[],
  fees: Fees,
): Promise<{ hash: string; raw: string } | null> {
  const { chainId } = env.chain.settings;
  const sender = owner.signer.address;
  // The sender's nonce row starts at the node's count the first time (the settlement wallet's is made at start-up).
  const known = seen.length || owner.fixedNonce !== undefined || sender === env.chain.settlementAddress;
  const nodeNonce = known ? 0n : BigInt(await env.chain.client.getTransactionCount({ address: sender, blockTag: 'pending' }));
  const spec = owner.spec();
  return em.transactional(async (tx) => {
    const slot = await owner.lockToSign(tx, seen);
    if (!slot) return null;
    const repo = repos(tx).chainTx;
    // Decided in SQL (ChainTxRepository.allocateNonce, one UPSERT under the sender's row lock): the next nonce.
    const nonce = seen[0]?.nonce ?? owner.fixedNonce ?? (await repo.allocateNonce(chainId, sender, nodeNonce));
    const raw = await owner.signer.signTransaction({ type: 'eip1559', chainId, nonce: Number(nonce), ...spec, ...fees });
    const hash = keccak256(raw);
    await repo.insertAttempt({
      hash,
      chainId,
      owner: owner.columns,
      from: sender,
      nonce,
      attempt: slot.attempt,
      raw,
      ...fees,
      gasLimit: spec.gas,
    });
    return { hash, raw };
  });
}

/**
 * Broadcasts the newest attempt's bytes; records (or clears) the node's refusal; 'gas' when it refused for funds. A
 * "nonce too low" is not recorded: whether the nonce went to these bytes is for the receipts and nonce-evidence.ts.
 */
async function rebroadcast(em: Em, env: TxEnv, owner: TxOwner, latest: Pick<AttemptRow, 'hash' | 'raw'>): Promise<'gas' | null> {
  const answer = await sendRaw(env.chain, latest.raw);
  if (answer === 'nonce_too_low') {
    // Expected after a restart re-sends a mined transaction (refusalLogLevel): info, never a warning.
    env.log[refusalLogLevel(answer)](
      { ...owner.fields, tx_hash: latest.hash },
      'the node reports this nonce used (mined, or taken): the receipts decide',
    );
    return null;
  }
  await repos(em).chainTx.setBroadcastError(latest.hash, answer === 'accepted' ? null : answer);
  if (answer === 'other') {
    env.log.error(
      { ...owner.fields, tx_hash: latest.hash },
      'the node refused a chain transaction for a reason the service does not know; it keeps its nonce and is retried',
    );
  }
  return answer === 'insufficient_funds' ? 'gas' : null;
}

/**
 * The external signer did not sign (down, refused, or answered another transaction: src/adapters/chain/remote-signer.ts): nothing was
 * stored (the database transaction holding the nonce rolled back), and the owner waits (`signer`), never fails.
 */
async function signerWait(em: Em, env: TxEnv, owner: TxOwner, err: unknown): Promise<'signer'> {
  if (!(err instanceof SignerUnavailable)) throw err;
  env.log.error(
    { ...owner.fields, signer_error: err.kind, reason: err.message },
    'the settlement signer did not sign: the transaction waits (pending_reason signer) until it does; check SETTLEMENT_SIGNER_URL',
  );
  await owner.onWait?.(em, 'signer');
  return 'signer';
}

/** Waits in which the transaction should be in the node's mempool: its stored bytes are broadcast again (after a restart, a dropped pool). */
const IN_POOL: ReadonlySet<WaitReason> = new Set(['mempool', 'queued', 'fee_cap']);

/** One step; answers what was decided (after acting on it). Node errors throw (the caller retries); nothing else does. */
export async function stepTx(em: Em, env: TxEnv, owner: TxOwner): Promise<Step> {
  const sender = owner.signer.address;
  const attempts = await owner.attempts(em);
  const preflight = owner.preflight && ((estimate: Fees) => owner.preflight!(em, estimate));
  const obs = await observe({ em, chain: env.chain, sender, attempts, policy: env.policy, now: Date.now(), preflight });
  const unproven = attempts.map((a) => a.unproven_since_ms).filter((t): t is number => t !== null);
  const step = planNext(attempts.map(attemptOf), obs, env.policy, unproven.length ? Math.min(...unproven) : null);
  const repo = repos(em).chainTx;
  const hashes = attempts.map((a) => a.hash);
  if (unproven.length && (step.do !== 'wait' || step.reason !== 'receipt_missing')) await repo.clearUnproven(hashes);
  switch (step.do) {
    case 'sign':
    case 'replace': {
      const stored = await signAndStore(em, env, owner, attempts, step.fees).catch((err: unknown) => signerWait(em, env, owner, err));
      if (stored === 'signer') return { do: 'wait', reason: 'signer' };
      if (!stored) return step;
      failpoint(owner.afterSignFailpoint ?? 'chain:afterSign');
      if (step.do === 'replace')
        env.log.info(
          { ...owner.fields, replaces: step.replaces, capped: step.capped },
          'chain transaction not mined in time: replaced at its nonce',
        );
      await rebroadcast(em, env, owner, stored);
      failpoint('chain:afterBroadcast');
      return step;
    }
    case 'record':
      if (!(await repo.recordOutcome(step.hash, step.status, step.blockNumber))) return step; // another process recorded it
      failpoint('chain:afterReceipt');
      await owner.onRecorded?.(em, step.hash, step.status);
      return step;
    case 'wait': {
      if (step.reason === 'receipt_missing') await repo.markUnproven(hashes);
      const refused = IN_POOL.has(step.reason) ? await rebroadcast(em, env, owner, attempts.at(-1)!) : null;
      const reason = refused === 'gas' ? 'gas' : step.reason;
      await owner.onWait?.(em, reason);
      return reason === step.reason ? step : { do: 'wait', reason };
    }
    case 'review':
      await owner.onReview(em, step.evidence);
      return step;
    case 'fail':
      await owner.onFail?.(em, step.code);
      return step;
  }
}
