// Deposits and withdrawals. The request side writes the operation and its outbox row in one transaction
// (a withdrawal also moves the amount from available to reserved there); only the settlement worker
// settles: it locks the operation, returns when it is no longer pending (a second run changes nothing),
// asks the settlement adapter, and posts the ledger transaction and the final status in the SAME
// transaction, so money moves exactly once.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { operationsRepository } from '../../db/repositories/operations.repository.js';
import { db } from '../../db/schema.js';
import { Conflict, NotFound } from '../errors.js';
import { microsFromDb } from '../ledger/amounts.js';
import { post } from '../ledger/ledger.js';
import type { SettlementAdapter } from '../settlement/adapter.js';

export type OperationKind = 'deposit' | 'withdraw';
export type OperationStatus = 'pending' | 'success' | 'failed';

export interface OperationRecord {
  id: string;
  userId: string;
  kind: OperationKind;
  status: OperationStatus;
  amount: bigint;
  destinationAddress: string | null;
  txHash: string | null;
  failureCode: string | null;
  createdAt: Date;
}

interface OperationRow {
  id: string;
  user_id: string;
  kind: OperationKind;
  status: OperationStatus;
  amount: string;
  destination_address: string | null;
  tx_hash: string | null;
  failure_code: string | null;
  created_at: Date | string;
}

const toRecord = (r: OperationRow): OperationRecord => ({
  id: r.id,
  userId: r.user_id,
  kind: r.kind,
  status: r.status,
  amount: microsFromDb(r.amount),
  destinationAddress: r.destination_address,
  txHash: r.tx_hash,
  failureCode: r.failure_code,
  createdAt: new Date(r.created_at),
});

/**
 * Inside the caller's transaction: the operation for this (user, kind, idempotency key), written with its
 * outbox row, or the one already written under that key (the unique index keeps it one); `created` says
 * which. The same key with another amount or destination is 409 IDEMPOTENCY_KEY_REUSED.
 */
async function openOperation(em: Em, userId: string, kind: OperationKind, amount: bigint, destination: string | null, key: string | null) {
  const id = randomUUID();
  const repo = operationsRepository(db(em));
  const inserted = await repo.insert({ id, userId, kind, amount: amount.toString(), destination, key });
  if (inserted) return { op: toRecord(inserted), created: true }; // with its outbox row
  const op = toRecord((await repo.findByKey(userId, kind, key))!);
  if (op.amount !== amount || op.destinationAddress !== destination) {
    throw new Conflict(
      'IDEMPOTENCY_KEY_REUSED',
      'this idempotency_key was already used with a different request body; use a new key for a new request',
    );
  }
  return { op, created: false };
}

/** Inside the caller's transaction: a pending deposit and its outbox row; nothing is credited until the worker settles it. */
export async function openDeposit(tx: Em, userId: string, amount: bigint, key: string | null): Promise<OperationRecord> {
  return (await openOperation(tx, userId, 'deposit', amount, null, key)).op;
}

/** Inside the caller's transaction: reserves the amount (422 INSUFFICIENT_BALANCE) and creates the pending withdrawal. */
export async function openWithdrawal(tx: Em, userId: string, amount: bigint, destination: string, key: string | null): Promise<OperationRecord> {
  const { op, created } = await openOperation(tx, userId, 'withdraw', amount, destination, key);
  if (!created) return op;
  await post(tx, {
    kind: 'withdraw_reserve',
    reference: op.id,
    entries: [
      { account: { userId, kind: 'user_available' }, amount: -amount },
      { account: { userId, kind: 'user_reserved' }, amount },
    ],
  });
  return op;
}

/** A pending deposit and its outbox row, in a transaction of its own (no idempotency key). */
export async function createDeposit(em: Em, userId: string, amount: bigint): Promise<OperationRecord> {
  return em.transactional((tx) => openDeposit(tx, userId, amount, null));
}

/** Reserves the amount and creates the pending withdrawal, in a transaction of its own (no idempotency key). */
export async function createWithdrawal(em: Em, userId: string, amount: bigint, destination: string): Promise<OperationRecord> {
  return em.transactional((tx) => openWithdrawal(tx, userId, amount, destination, null));
}

export async function findOperation(em: Em, id: string): Promise<OperationRecord | null> {
  const row = await operationsRepository(db(em)).find(id);
  return row ? toRecord(row) : null;
}

/** The caller's own operation; another user's is exactly as unknown as a missing one. */
export async function getOwnOperation(em: Em, userId: string, id: string): Promise<OperationRecord> {
  const op = await findOperation(em, id);
  if (!op || op.userId !== userId) throw new NotFound('OPERATION_NOT_FOUND', 'no operation with this id for this user');
  return op;
}

export type SettleOutcome = 'settled' | 'failed' | 'already_final' | 'missing';

/**
 * Settles one operation, idempotently. Everything happens in one transaction holding the operation's row
 * lock: the adapter's answer, the ledger posting, the final status and the outbox delete commit together
 * or not at all.
 */
export async function settleOperation(em: Em, adapter: SettlementAdapter, operationId: string): Promise<SettleOutcome> {
  return em.transactional(async (tx) => {
    const repo = operationsRepository(db(tx));
    const row = await repo.findForUpdate(operationId);
    if (!row) return 'missing';
    const op = toRecord(row);
    if (op.status !== 'pending') {
      await repo.deleteOutbox(op.id);
      return 'already_final';
    }
    const result = await adapter.settle(tx, {
      operationId: op.id,
      userId: op.userId,
      kind: op.kind,
      amount: op.amount,
      destinationAddress: op.destinationAddress,
    });
    const clearing = { system: 'settlement_clearing' as const };
    if (result.ok) {
      if (op.kind === 'deposit') {
        await post(tx, {
          kind: 'deposit',
          reference: op.id,
          entries: [
            { account: clearing, amount: -op.amount },
            { account: { userId: op.userId, kind: 'user_available' }, amount: op.amount },
          ],
        });
      } else {
        await post(tx, {
          kind: 'withdraw_settle',
          reference: op.id,
          entries: [
            { account: { userId: op.userId, kind: 'user_reserved' }, amount: -op.amount },
            { account: clearing, amount: op.amount },
          ],
        });
      }
      await repo.markSettled(op.id, result.txHash);
    } else {
      if (op.kind === 'withdraw') {
        await post(tx, {
          kind: 'withdraw_refund',
          reference: op.id,
          entries: [
            { account: { userId: op.userId, kind: 'user_reserved' }, amount: -op.amount },
            { account: { userId: op.userId, kind: 'user_available' }, amount: op.amount },
          ],
        });
      }
      await repo.markFailed(op.id, result.failureCode);
    }
    // markSettled / markFailed deleted the outbox row with the status change.
    return result.ok ? 'settled' : 'failed';
  });
}

/** Operations whose outbox row is older than `olderThanMs`: committed but maybe never enqueued. */
export async function staleOutbox(em: Em, olderThanMs: number, limit = 500): Promise<string[]> {
  return operationsRepository(db(em)).staleOutbox(olderThanMs, limit);
}
