// Deposits and withdrawals. The request side writes the operation and its outbox row in one transaction
// (a withdrawal also moves its amount and fee from available to reserved there); only the settlement worker
// settles: it locks the operation, returns when it is no longer pending (a second run changes nothing),
// asks the settlement adapter, and posts the ledger transaction and the final status in the SAME
// transaction, so money moves exactly once. A withdrawal held for an operator's review (pending_reason
// `review`, src/domain/money/withdrawal-review.ts) has no outbox row and is never settled until approved.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import type { PendingReason } from '../../db/repositories/chain.repository.js';
import type { ReviewCause } from '../../db/repositories/withdrawals.repository.js';
import { Conflict, NotFound } from '../errors.js';
import { post, postAll, type Posting } from '../ledger/ledger.js';
import { depositPosting, type SettlementAdapter } from '../settlement/adapter.js';
import { repos } from '../../db/repos.js';

export type OperationKind = 'deposit' | 'withdraw';
export type OperationStatus = 'pending' | 'success' | 'failed';
export type { PendingReason };

export interface OperationRecord {
  id: string;
  userId: string;
  kind: OperationKind;
  status: OperationStatus;
  amount: bigint;
  /** A withdrawal's fee (reserved with the amount, posted to the treasury when paid); 0n on deposits. */
  fee: bigint;
  destinationAddress: string | null;
  txHash: string | null;
  failureCode: string | null;
  createdAt: Date;
  /** Why a pending operation waits (review; onchain: receipt_missing, needs_review; docs/settlement.md); null otherwise. */
  pendingReason: PendingReason | null;
}

interface OperationRow {
  id: string;
  user_id: string;
  kind: OperationKind;
  status: OperationStatus;
  amount: bigint;
  fee_micros: bigint;
  destination_address: string | null;
  tx_hash: string | null;
  failure_code: string | null;
  created_at: Date | string;
  pending_reason: PendingReason | null;
}

const toRecord = (r: OperationRow): OperationRecord => ({
  id: r.id,
  userId: r.user_id,
  kind: r.kind,
  status: r.status,
  amount: r.amount,
  fee: r.fee_micros,
  destinationAddress: r.destination_address,
  txHash: r.tx_hash,
  failureCode: r.failure_code,
  createdAt: new Date(r.created_at),
  pendingReason: r.pending_reason,
});

interface OpenInput {
  userId: string;
  kind: OperationKind;
  amount: bigint;
  fee: bigint;
  destination: string | null;
  key: string | null;
  held: boolean;
}

/**
 * Inside the caller's transaction: the operation for this (user, kind, idempotency key), written with its
 * outbox row (none when held for review), or the one already written under that key (the unique index keeps it
 * one); `created` says which. The same key with another amount or destination is 409 IDEMPOTENCY_KEY_REUSED.
 */
async function openOperation(em: Em, o: OpenInput) {
  const id = randomUUID();
  const repo = repos(em).operations;
  const inserted = await repo.insert({ id, ...o });
  if (inserted) return { op: toRecord(inserted), created: true }; // with its outbox row
  const op = await findByKey(em, o.userId, o.kind, o.key);
  if (op!.amount !== o.amount || op!.destinationAddress !== o.destination) {
    throw new Conflict(
      'IDEMPOTENCY_KEY_REUSED',
      'this idempotency_key was already used with a different request body; use a new key for a new request',
    );
  }
  return { op: op!, created: false };
}

/** The operation written under this (user, kind, idempotency key), if any. */
export async function findByKey(em: Em, userId: string, kind: OperationKind, key: string | null): Promise<OperationRecord | undefined> {
  const row = await repos(em).operations.findByKey(userId, kind, key);
  return row && toRecord(row);
}

/** Inside the caller's transaction: a pending deposit and its outbox row; nothing is credited until the worker settles it. */
export async function openDeposit(tx: Em, userId: string, amount: bigint, key: string | null): Promise<OperationRecord> {
  return (await openOperation(tx, { userId, kind: 'deposit', amount, fee: 0n, destination: null, key, held: false })).op;
}

/**
 * Inside the caller's transaction: reserves the amount and the fee (422 INSUFFICIENT_BALANCE) and creates the
 * pending withdrawal; with `review` causes it is held (pending_reason review, no outbox row) and its review
 * recorded. The custody rules that choose the fee and the review are src/domain/money/withdrawals.ts's.
 */
export async function openWithdrawal(
  tx: Em,
  userId: string,
  amount: bigint,
  destination: string,
  key: string | null,
  opts: { fee?: bigint; review?: readonly ReviewCause[] } = {},
): Promise<OperationRecord> {
  const fee = opts.fee ?? 0n;
  const review = opts.review ?? [];
  const held = review.length > 0;
  const { op, created } = await openOperation(tx, { userId, kind: 'withdraw', amount, fee, destination, key, held });
  if (!created) return op;
  if (held) await repos(tx).withdrawals.insertReview(op.id, review);
  await post(tx, {
    kind: 'withdraw_reserve',
    reference: op.id,
    entries: [
      { account: { userId, kind: 'user_available' }, amount: -(amount + fee) },
      { account: { userId, kind: 'user_reserved' }, amount: amount + fee },
    ],
  });
  return op;
}

export async function findOperation(em: Em, id: string): Promise<OperationRecord | null> {
  const row = await repos(em).operations.find(id);
  return row ? toRecord(row) : null;
}

/** The caller's own operation; another user's is exactly as unknown as a missing one. */
export async function getOwnOperation(em: Em, userId: string, id: string): Promise<OperationRecord> {
  const op = await findOperation(em, id);
  if (!op || op.userId !== userId) throw new NotFound('OPERATION_NOT_FOUND', 'no operation with this id for this user');
  return op;
}

/** A paid withdrawal leaves reserved: the amount to the settlement clearing account (it left on chain), the fee to the treasury. */
export function withdrawalPaidPosting(op: Pick<OperationRecord, 'id' | 'userId' | 'amount' | 'fee'>): Posting {
  const fee = op.fee > 0n ? [{ account: { system: 'treasury' as const }, amount: op.fee }] : [];
  return {
    kind: 'withdraw_settle',
    reference: op.id,
    entries: [
      { account: { userId: op.userId, kind: 'user_reserved' }, amount: -(op.amount + op.fee) },
      { account: { system: 'settlement_clearing' }, amount: op.amount },
      ...fee,
    ],
  };
}

/** A withdrawal that failed (or was rejected) returns its amount and fee from reserved to available. */
export function withdrawalRefundPosting(op: Pick<OperationRecord, 'id' | 'userId' | 'amount' | 'fee'>): Posting {
  return {
    kind: 'withdraw_refund',
    reference: op.id,
    entries: [
      { account: { userId: op.userId, kind: 'user_reserved' }, amount: -(op.amount + op.fee) },
      { account: { userId: op.userId, kind: 'user_available' }, amount: op.amount + op.fee },
    ],
  };
}

/**
 * `pending`: the adapter has no outcome yet (onchain, before the transaction is confirmed); nothing changed.
 * `held`: a withdrawal held for an operator's review; nothing is asked of the adapter until it is approved.
 */
export type SettleOutcome = 'settled' | 'failed' | 'already_final' | 'missing' | 'pending' | 'held';

/**
 * Settles one operation, idempotently. Everything happens in one transaction holding the operation's row
 * lock: the adapter's answer, the ledger posting, the final status and the outbox delete commit together
 * or not at all.
 */
export async function settleOperation(em: Em, adapter: SettlementAdapter, operationId: string): Promise<SettleOutcome> {
  return (await settleOperations(em, adapter, [operationId])).get(operationId)!;
}

/**
 * Settles several operations in ONE transaction (the settlement worker's batch), idempotently, with the
 * same effects as settleOperation on each in id order: their rows locked in id order, the adapter asked once,
 * every ledger posting in one postAll, every final status and outbox delete in one statement. Operations no
 * longer pending are left as they are (outbox row dropped); unknown ids are `missing`. An error rolls back
 * the whole batch (the worker then settles its operations one by one).
 */
export async function settleOperations(em: Em, adapter: SettlementAdapter, ids: readonly string[]): Promise<Map<string, SettleOutcome>> {
  return em.transactional(async (tx) => {
    const repo = repos(tx).operations;
    const outcomes = new Map<string, SettleOutcome>(ids.map((id) => [id, 'missing']));
    const ops = (await repo.findManyForUpdate([...outcomes.keys()])).map(toRecord);
    const final = ops.filter((op) => op.status !== 'pending');
    for (const op of final) outcomes.set(op.id, 'already_final');
    if (final.length) await repo.deleteOutboxes(final.map((op) => op.id));
    const held = ops.filter((op) => op.status === 'pending' && op.pendingReason === 'review');
    for (const op of held) outcomes.set(op.id, 'held');
    const pending = ops.filter((op) => op.status === 'pending' && op.pendingReason !== 'review');
    if (!pending.length) return outcomes;
    const results = await adapter.settle(
      tx,
      pending.map((op) => ({
        operationId: op.id,
        userId: op.userId,
        kind: op.kind,
        amount: op.amount,
        destinationAddress: op.destinationAddress,
      })),
    );
    const postings: Posting[] = [];
    const marks = {
      ids: [] as string[],
      statuses: [] as Array<'success' | 'failed'>,
      txHashes: [] as Array<string | null>,
      failureCodes: [] as Array<string | null>,
    };
    pending.forEach((op, i) => {
      const result = results[i]!;
      if (result.ok === 'pending') return void outcomes.set(op.id, 'pending');
      if (result.ok && op.kind === 'deposit') postings.push(depositPosting(op.id, op.userId, op.amount));
      else if (result.ok) postings.push(withdrawalPaidPosting(op));
      else if (op.kind === 'withdraw') postings.push(withdrawalRefundPosting(op));
      marks.ids.push(op.id);
      marks.statuses.push(result.ok ? 'success' : 'failed');
      marks.txHashes.push(result.ok ? result.txHash : null);
      marks.failureCodes.push(result.ok ? null : result.failureCode);
      outcomes.set(op.id, result.ok ? 'settled' : 'failed');
    });
    if (postings.length) await postAll(tx, postings);
    if (marks.ids.length) await repo.markFinal(marks);
    return outcomes;
  });
}

/** Operations whose outbox row is older than `olderThanMs`: committed but maybe never enqueued. */
export async function staleOutbox(em: Em, olderThanMs: number, limit = 500): Promise<string[]> {
  return repos(em).operations.staleOutbox(olderThanMs, limit);
}
