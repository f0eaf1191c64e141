// The chain side of one deposit or withdrawal, exactly once on the chain (docs/settlement.md):
//   1. sign: in ONE database transaction holding the operation's row lock, take the settlement wallet's next
//      nonce from chain_nonces, sign locally, and store the signed bytes and hash. Nothing is broadcast yet.
//   2. broadcast the stored bytes (every attempt; again after any restart: the bytes, never a new signature).
//   3. wait for a receipt of any of the operation's hashes and for CHAIN_CONFIRMATIONS blocks; a transaction
//      not mined after CHAIN_REPLACE_AFTER_MS is replaced at the SAME nonce with a higher fee (stored first,
//      then broadcast), so at most one of them can ever be mined.
//   4. record the outcome (success / reverted / dropped) on the mined transaction's row.
// The ledger posting follows in the settlement worker's transaction (src/domain/money/operations.ts), which
// reads the recorded outcome through the adapter. Node errors never fail an operation: they are retried.
import { encodeFunctionData, erc20Abi, getAddress, keccak256, type Address, type Hex, type TransactionReceipt } from 'viem';
import type { Em } from '../../../db/orm.js';
import { chainRepository, type ChainTxRow, type OperationForChain } from '../../../db/repositories/chain.repository.js';
import { db } from '../../../db/schema.js';
import { failpoint } from '../../../failpoints.js';
import type { Logger } from '../../../logger.js';
import { shortReason, type Chain } from './chain.js';
import { evidenceFields, findAtNonce, nonceUsed, type NonceEvidence } from './nonce-evidence.js';

/** Gas limit of a token transfer or transferFrom (USDC on Base uses ~40-65k; unused gas is not charged). */
export const TRANSFER_GAS = 150_000n;

/** A replacement pays at least this much more than the transaction it replaces (nodes require >= 10%). */
export const bump = (fee: bigint) => fee + fee / 4n + 1n;

export interface AdvanceOptions {
  log: Logger;
  signal?: AbortSignal;
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

function callData(op: OperationForChain, settlement: Address): Hex {
  if (op.kind === 'withdraw') {
    return encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(op.destination_address!), op.amount] });
  }
  return encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [getAddress(op.wallet_address), settlement, op.amount] });
}

/**
 * Signs and stores the operation's next transaction (attempt 0, or a replacement of `after`) unless another
 * process did it first (the operation's row lock decides). Returns whether this call stored one.
 */
async function signAndStore(em: Em, chain: Chain, opId: string, after: ChainTxRow | undefined): Promise<boolean> {
  const fees = await chain.client.estimateFeesPerGas();
  let maxFeePerGas = fees.maxFeePerGas;
  let maxPriorityFeePerGas = fees.maxPriorityFeePerGas;
  if (after) {
    maxFeePerGas = [maxFeePerGas, bump(after.max_fee_per_gas)].reduce((a, b) => (a > b ? a : b));
    maxPriorityFeePerGas = [maxPriorityFeePerGas, bump(after.max_priority_fee_per_gas)].reduce((a, b) => (a > b ? a : b));
  }
  if (maxPriorityFeePerGas > maxFeePerGas) maxFeePerGas = maxPriorityFeePerGas;
  return em.transactional(async (tx) => {
    const repo = chainRepository(db(tx));
    const op = await repo.operation(opId, true);
    if (!op || op.status !== 'pending') return false;
    const txs = await repo.transactions(opId);
    const latest = txs.at(-1);
    if (txs.some((t) => t.receipt_status) || latest?.hash !== after?.hash) return false; // someone else moved first
    const { settings, account } = chain;
    const nonce = latest ? latest.nonce : await repo.allocateNonce(settings.chainId, account.address);
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: settings.chainId,
      nonce: Number(nonce),
      to: chain.token,
      data: callData(op, account.address),
      value: 0n,
      gas: TRANSFER_GAS,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    await repo.insertTransaction({
      hash: keccak256(raw),
      chainId: settings.chainId,
      operationId: opId,
      from: account.address,
      nonce,
      attempt: latest ? latest.attempt + 1 : 0,
      raw,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    return true;
  });
}

/** Sends the stored bytes; a node that already knows them, or already mined the nonce, is not an error. */
export async function broadcast(chain: Chain, txs: readonly Pick<ChainTxRow, 'hash' | 'raw'>[], log: Logger): Promise<void> {
  for (const t of txs) {
    try {
      await chain.client.sendRawTransaction({ serializedTransaction: t.raw as Hex });
    } catch (err) {
      const reason = shortReason(err);
      if (/already known|nonce too low|underpriced|already imported|known transaction/i.test(reason)) continue;
      if (/fetch failed|timed out|timeout|ECONNREFUSED|socket|network|HTTP request failed/i.test(reason)) throw err;
      log.warn({ tx_hash: t.hash, reason }, 'the node refused a settlement transaction; waiting for its receipt or a replacement');
    }
  }
}

export async function receiptOf(chain: Chain, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await chain.client.getTransactionReceipt({ hash: hash as Hex });
  } catch (err) {
    if ((err as { name?: string }).name === 'TransactionReceiptNotFoundError') return null;
    throw err;
  }
}

type Step = { outcome: 'recorded' } | { outcome: 'replace'; after: ChainTxRow } | { outcome: 'review' };

/** What `advance` left the operation as: recorded (the ledger can post it), waiting, or in an operator's review. */
export type AdvanceResult = 'recorded' | 'waiting' | 'needs_review';

/** The deeper search for the transaction at a used nonce (by hash, by block) runs at most this often. */
const EVIDENCE_EVERY_MS = 30_000;

/**
 * Records the outcome of the newest of `txs` that has a receipt with its confirmations: 'recorded'; 'mined' when
 * one has a receipt but not yet its confirmations (never replaced then); 'none' when no receipt was served.
 */
async function receiptOutcome(em: Em, chain: Chain, opId: string, txs: readonly ChainTxRow[]): Promise<'recorded' | 'mined' | 'none'> {
  const head = await chain.client.getBlockNumber({ cacheTime: 0 });
  for (const t of [...txs].reverse()) {
    const receipt = await receiptOf(chain, t.hash);
    if (!receipt) continue;
    if (head - receipt.blockNumber + 1n < BigInt(chain.settings.confirmations)) return 'mined';
    await chainRepository(db(em)).recordOutcome(opId, t.hash, receipt.status === 'success' ? 'success' : 'reverted', receipt.blockNumber);
    failpoint('chain:afterReceipt');
    return 'recorded';
  }
  return 'none';
}

/**
 * The nonce is used on chain and no receipt of ours was served: never a refund, never a replacement (the nonce
 * is gone). The operation waits as `receipt_missing`; after CHAIN_RECEIPT_REVIEW_AFTER_MS of that, or at once
 * when a block shows another transaction at the nonce, it goes to `needs_review` (an error log and the
 * crfq_operations_pending gauge alert an operator) and is looked at again every CHAIN_REVIEW_RECHECK_MS.
 */
async function unproven(em: Em, chain: Chain, op: OperationForChain, nonce: bigint, evidence: NonceEvidence, log: Logger): Promise<Step | null> {
  const repo = chainRepository(db(em));
  const fields = { operation_id: op.id, kind: op.kind, nonce: nonce.toString(), ...evidenceFields(evidence) };
  let reason = op.pending_reason === 'needs_review' || evidence.kind === 'foreign' ? ('needs_review' as const) : ('receipt_missing' as const);
  let since = await repo.setPendingReason(op.id, reason);
  if (since === null) return { outcome: 'recorded' }; // settled meanwhile by another process
  if (reason === 'receipt_missing' && op.pending_reason !== 'receipt_missing') {
    log.warn(
      fields,
      'the settlement nonce is used on chain but the node serves no receipt for this operation yet: waiting (never refunded on a missing receipt)',
    );
  }
  if (reason === 'receipt_missing' && Date.now() - since >= chain.settings.receiptReviewAfterMs) reason = 'needs_review';
  if (reason !== 'needs_review') return null;
  if (op.pending_reason !== 'needs_review') {
    since = await repo.setPendingReason(op.id, 'needs_review');
    log.error(
      { ...fields, waited_ms: Date.now() - (op.pending_reason_at_ms ?? Date.now()) },
      "settlement needs an operator: the nonce is used but this operation's transaction cannot be proven mined; check the chain, then POST /v1/admin/operations/{operation_id}/resolve (docs/operations.md)",
    );
  }
  await repo.deferOutbox(op.id, chain.settings.reviewRecheckMs);
  return { outcome: 'review' };
}

/**
 * Polls until an attempt has its confirmations (then records it), the newest attempt is due for replacement (only
 * while its nonce is still unused on chain), or the operation goes to review. One pass only when `once`.
 */
async function waitForOutcome(em: Em, chain: Chain, op: OperationForChain, txs: readonly ChainTxRow[], opts: AdvanceOptions & { once?: boolean }) {
  const { replaceAfterMs, pollMs } = chain.settings;
  const latest = txs.at(-1)!;
  const since = Date.now();
  let evidence: { at: number; e: NonceEvidence } | undefined;
  while (!opts.signal?.aborted) {
    const found = await receiptOutcome(em, chain, op.id, txs);
    if (found === 'recorded') return { outcome: 'recorded' } satisfies Step;
    if (found === 'mined' && op.pending_reason === 'receipt_missing') {
      await chainRepository(db(em)).setPendingReason(op.id, null); // the receipt is back: waiting for confirmations only
      op.pending_reason = null;
    }
    if (found === 'none' && (await nonceUsed(chain, chain.settlementAddress, latest.nonce))) {
      if (!evidence || Date.now() - evidence.at >= EVIDENCE_EVERY_MS) {
        const head = await chain.client.getBlockNumber({ cacheTime: 0 });
        evidence = {
          at: Date.now(),
          e: await findAtNonce(
            chain,
            chain.settlementAddress,
            latest.nonce,
            txs.map((t) => t.hash),
            head,
          ),
        };
      }
      const step = await unproven(em, chain, op, latest.nonce, evidence.e, opts.log);
      if (step) return step;
      op.pending_reason = 'receipt_missing';
    } else if (found === 'none' && Date.now() - since >= replaceAfterMs && op.pending_reason !== 'needs_review') {
      return { outcome: 'replace', after: latest } satisfies Step;
    }
    if (opts.once) return null;
    await sleep(pollMs, opts.signal);
  }
  return null;
}

/**
 * Drives one operation's transaction until its outcome is recorded (or the operation is no longer pending, goes
 * to an operator's review, or `signal` aborts: then it returns early and the job is retried). An operation already
 * in review gets one look (a receipt that appeared settles it). Node errors are logged and retried every
 * CHAIN_POLL_MS; database errors are thrown (the job is retried).
 */
export async function advanceOnchain(em: Em, chain: Chain, opId: string, opts: AdvanceOptions): Promise<AdvanceResult> {
  const repo = chainRepository(db(em));
  let nodeDown = 0;
  while (!opts.signal?.aborted) {
    const op = await repo.operation(opId, false);
    if (!op || op.status !== 'pending') return 'recorded';
    const txs = await repo.transactions(opId);
    if (txs.some((t) => t.receipt_status)) return 'recorded';
    try {
      if (!txs.length) {
        await signAndStore(em, chain, opId, undefined);
        failpoint('chain:afterSign');
        continue;
      }
      await broadcast(chain, txs, opts.log);
      failpoint('chain:afterBroadcast');
      const inReview = op.pending_reason === 'needs_review';
      const step = await waitForOutcome(em, chain, op, txs, { ...opts, once: inReview });
      if (step?.outcome === 'recorded') return 'recorded';
      if (step?.outcome === 'review' || (inReview && !step)) return 'needs_review';
      if (!step) return 'waiting';
      opts.log.info(
        { operation_id: opId, nonce: step.after.nonce.toString(), replaces: step.after.hash },
        'settlement transaction not mined in time: replacing it',
      );
      await signAndStore(em, chain, opId, step.after);
      nodeDown = 0;
    } catch (err) {
      if (isDatabaseError(err)) throw err;
      if (nodeDown++ % 20 === 0) opts.log.warn({ operation_id: opId, reason: shortReason(err) }, 'chain node error while settling; retrying');
      if (op.pending_reason === 'needs_review') return 'needs_review';
      await sleep(chain.settings.pollMs, opts.signal);
    }
  }
  return 'waiting';
}

/** Errors of viem are the node's; anything carrying an SQLSTATE (or a failpoint) is the database's. */
export function isDatabaseError(err: unknown): boolean {
  const e = err as { code?: unknown; name?: string };
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}
