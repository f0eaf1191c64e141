// Deposits and withdrawals in an operator's review (docs/settlement.md, "What the service concludes from the
// node"; docs/operations.md, "Settlement in review"). The service never fails, refunds or credits an operation
// because the chain node could not show its transaction: when the settlement wallet's nonce is used and none
// of the operation's hashes can be proven mined, the operation waits (`receipt_missing`), then goes to
// `needs_review`, and only an operator's resolution (or a receipt that finally appears) settles it. The
// resolution is recorded in settlement_resolutions and settled in the same transaction, by the same code the
// settlement worker runs (settleOperations), with the operator's audit row.
import type { Em } from '../../db/orm.js';
import type { Tx } from '../../db/unit-of-work.js';
import type { ChainRepository, PendingReason } from '../../db/repositories/chain.repository.js';
import { type ReviewCause, type ReviewRow } from '../../db/repositories/withdrawals.repository.js';
import { Conflict, NotFound, ValidationFailed } from '../errors.js';
import type { SettlementAdapter } from '../settlement/adapter.js';
import { settleOperations } from './operations.js';
import { repos } from '../../db/repos.js';

export interface ReviewTransaction {
  hash: string;
  nonce: bigint;
  attempt: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  receiptStatus: string | null;
  blockNumber: bigint | null;
}

/** A withdrawal's hold for an operator's review (src/domain/money/withdrawal-review.ts), and the decision once made. */
export interface WithdrawalReviewRecord {
  status: 'review' | 'approved' | 'rejected';
  causes: ReviewCause[];
  heldAt: Date;
  reason: string | null;
  operator: string | null;
  decidedAt: Date | null;
}

export interface ReviewOperation {
  id: string;
  userId: string;
  kind: 'deposit' | 'withdraw';
  status: 'pending' | 'success' | 'failed';
  amount: bigint;
  fee: bigint;
  destinationAddress: string | null;
  txHash: string | null;
  failureCode: string | null;
  createdAt: Date;
  pendingReason: PendingReason | null;
  pendingReasonAt: Date | null;
  review: WithdrawalReviewRecord | null;
  transactions: ReviewTransaction[];
}

type Row = NonNullable<Awaited<ReturnType<ChainRepository['adminOperation']>>>;

const reviewRecord = (r: ReviewRow): WithdrawalReviewRecord => ({
  status: r.decision ?? 'review',
  causes: r.causes,
  heldAt: new Date(r.held_at),
  reason: r.reason,
  operator: r.operator,
  decidedAt: r.decided_at === null ? null : new Date(r.decided_at),
});

/** The operations as the operator sees them: with their fee, their review (withdrawals held once) and every transaction signed. */
export async function withTransactions(em: Em, rows: readonly Row[]): Promise<ReviewOperation[]> {
  const ids = rows.map((r) => r.id);
  const rs = repos(em);
  const txs = rows.length ? await rs.chain.transactionsOf(ids) : [];
  const fees = await rs.withdrawals.feesOf(ids);
  const reviews = new Map((await rs.withdrawals.reviewsOf(ids)).map((r) => [r.operation_id, reviewRecord(r)]));
  return rows.map((r) => ({
    id: r.id,
    userId: r.user_id,
    kind: r.kind,
    status: r.status,
    amount: r.amount,
    fee: fees.get(r.id) ?? 0n,
    review: reviews.get(r.id) ?? null,
    destinationAddress: r.destination_address,
    txHash: r.tx_hash,
    failureCode: r.failure_code,
    createdAt: new Date(r.created_at),
    pendingReason: r.pending_reason,
    pendingReasonAt: r.pending_reason_at === null ? null : new Date(r.pending_reason_at),
    transactions: txs
      .filter((t) => t.operation_id === r.id)
      .map((t) => ({
        hash: t.hash,
        nonce: t.nonce,
        attempt: t.attempt,
        maxFeePerGas: t.max_fee_per_gas,
        maxPriorityFeePerGas: t.max_priority_fee_per_gas,
        receiptStatus: t.receipt_status,
        blockNumber: t.block_number,
      })),
  }));
}

/** The pending operations waiting for `reason`, newest first (at most `limit`). */
export async function operationsWaiting(em: Em, reason: PendingReason, limit: number): Promise<ReviewOperation[]> {
  return withTransactions(em, await repos(em).chain.waiting(reason, limit));
}

export interface Resolution {
  operationId: string;
  outcome: 'success' | 'failed';
  txHash: string | null;
  reason: string;
  /** The operator account resolving it. */
  operator: string;
}

/**
 * Before a resolution, outside any transaction: the node asked once more for a receipt of each of the
 * operation's transactions. When one answers, the chain decides (409 CHAIN_HAS_RECEIPT, nothing changes).
 */
export async function refuseWhenChainAnswers(em: Em, adapter: SettlementAdapter, operationId: string): Promise<void> {
  const op = await repos(em).chain.operation(operationId, false);
  if (op?.status !== 'pending' || op.pending_reason !== 'needs_review') return; // the write answers (a replay, 404 or 409)
  const receipt = await adapter.chainReceipt?.(em, operationId);
  if (receipt) {
    throw new Conflict(
      'CHAIN_HAS_RECEIPT',
      `the node now serves a receipt for ${receipt.hash}; the workers record the chain's outcome, nothing was changed`,
      { tx_hash: receipt.hash, receipt_status: receipt.status },
    );
  }
}

/**
 * Inside the caller's transaction (with its audit row): records the operator's resolution of an operation in
 * review and settles it (ledger posting and final status) at once. 404 OPERATION_NOT_FOUND; 409
 * OPERATION_NOT_IN_REVIEW unless it is pending with pending_reason needs_review.
 */
export async function resolveInReview(tx: Tx, adapter: SettlementAdapter, r: Resolution): Promise<ReviewOperation> {
  if ((r.outcome === 'success') !== (r.txHash !== null)) {
    throw new ValidationFailed('tx_hash is required with outcome success and refused with outcome failed', [
      {
        in: 'body',
        path: '/tx_hash',
        message: r.outcome === 'success' ? 'is required with outcome success' : 'must be absent with outcome failed',
      },
    ]);
  }
  const repo = repos(tx).chain;
  const op = await repo.operation(r.operationId, true);
  if (!op) throw new NotFound('OPERATION_NOT_FOUND', 'no operation with this id');
  if (op.status !== 'pending' || op.pending_reason !== 'needs_review') {
    throw new Conflict(
      'OPERATION_NOT_IN_REVIEW',
      `operation ${op.id} is not in review; only an operation with pending_reason needs_review can be resolved`,
      { status: op.status, pending_reason: op.pending_reason },
    );
  }
  await repo.insertResolution(r);
  await settleOperations(tx, adapter, [op.id]);
  return (await withTransactions(tx, [(await repo.adminOperation(op.id))!]))[0]!;
}
