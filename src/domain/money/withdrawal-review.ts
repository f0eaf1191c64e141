// Withdrawals held for an operator's review (docs/operations.md, "Custody"): above WITHDRAWAL_REVIEW_ABOVE_MICROS,
// or past the deployment's rolling-hour volume (src/domain/money/requests.ts). A held withdrawal is pending with
// pending_reason `review`, its amount and fee reserved, and no outbox row: no worker ever sees it. An operator
// approves it (the decision, pending_reason cleared and its outbox row commit together: the workers then send
// it once, like any other) or rejects it (the decision, the refund of amount and fee and the final status
// `failed` WITHDRAWAL_REJECTED commit together). Both run in the caller's transaction, with the operator's
// audit row; the operation's row lock makes an approval and a rejection of one withdrawal one after the other.
import type { Em } from '../../db/orm.js';
import type { Tx } from '../../db/unit-of-work.js';
import { Conflict, NotFound } from '../errors.js';
import { post } from '../ledger/ledger.js';
import { withdrawalRefundPosting } from './operations.js';
import { withTransactions, type ReviewOperation } from './review.js';
import { repos } from '../../db/repos.js';

export const WITHDRAWAL_REJECTED = 'WITHDRAWAL_REJECTED';

export interface ReviewDecisionInput {
  operationId: string;
  /** Required to reject. */
  reason: string | null;
  /** The operator account deciding. */
  operator: string;
}

/** The withdrawals whose review is in `status`: waiting ones oldest first, decided ones newest decision first. */
export async function withdrawalsInReview(em: Em, status: 'review' | 'approved' | 'rejected', limit: number): Promise<ReviewOperation[]> {
  const repo = repos(em).withdrawals;
  const ids = await repo.reviewIds(status, limit);
  const byId = new Map((await withTransactions(em, await repo.adminOperations(ids))).map((o) => [o.id, o]));
  return ids.map((id) => byId.get(id)!);
}

async function lockHeld(tx: Em, operationId: string) {
  const op = await repos(tx).withdrawals.lockForDecision(operationId);
  if (!op || op.kind !== 'withdraw') throw new NotFound('WITHDRAWAL_NOT_FOUND', 'no withdrawal with this id');
  if (op.status !== 'pending' || op.pending_reason !== 'review' || !op.review || op.review.decision !== null) {
    throw new Conflict('WITHDRAWAL_NOT_IN_REVIEW', `withdrawal ${op.id} is not held for review`, {
      status: op.status,
      pending_reason: op.pending_reason,
      decision: op.review?.decision ?? null,
    });
  }
  return op;
}

const current = async (tx: Em, operationId: string) =>
  (await withTransactions(tx, await repos(tx).withdrawals.adminOperations([operationId])))[0]!;

/** Inside the caller's transaction: approved, and handed to settlement (the caller enqueues it after commit). */
export async function approveWithdrawal(tx: Tx, d: ReviewDecisionInput): Promise<ReviewOperation> {
  await lockHeld(tx, d.operationId);
  const repo = repos(tx).withdrawals;
  await repo.decide({ operationId: d.operationId, decision: 'approved', reason: d.reason, operator: d.operator });
  await repo.release(d.operationId);
  return current(tx, d.operationId);
}

/** Inside the caller's transaction: rejected, the amount and fee back in available, the withdrawal failed WITHDRAWAL_REJECTED. */
export async function rejectWithdrawal(tx: Tx, d: ReviewDecisionInput & { reason: string }): Promise<ReviewOperation> {
  const op = await lockHeld(tx, d.operationId);
  const r = repos(tx);
  await r.withdrawals.decide({ operationId: d.operationId, decision: 'rejected', reason: d.reason, operator: d.operator });
  await post(tx, withdrawalRefundPosting({ id: op.id, userId: op.user_id, amount: op.amount, fee: op.fee }));
  await r.operations.markFinal({ ids: [op.id], statuses: ['failed'], txHashes: [null], failureCodes: [WITHDRAWAL_REJECTED] });
  return current(tx, d.operationId);
}
