// Deposits and withdrawals. The request side writes the operation and its outbox row in one transaction
// (a withdrawal also moves the amount from available to reserved there); only the settlement worker
// settles: it locks the operation, returns when it is no longer pending (a second run changes nothing),
// asks the settlement adapter, and posts the ledger transaction and the final status in the SAME
// transaction, so money moves exactly once.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
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

const COLUMNS = 'id, user_id, kind, status, amount::text as amount, destination_address, tx_hash, failure_code, created_at';

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
  const rows = await em.execute<OperationRow[]>(
    `insert into operations (id, user_id, kind, amount, destination_address, idempotency_key) values (?, ?, ?, ?, ?, ?)
     on conflict (user_id, kind, idempotency_key) where idempotency_key is not null do nothing returning ${COLUMNS}`,
    [id, userId, kind, amount.toString(), destination, key],
  );
  if (rows[0]) {
    await em.execute('insert into operation_outbox (operation_id) values (?)', [id], 'run');
    return { op: toRecord(rows[0]), created: true };
  }
  const found = await em.execute<OperationRow[]>(`select ${COLUMNS} from operations where user_id = ? and kind = ? and idempotency_key = ?`, [
    userId,
    kind,
    key,
  ]);
  const op = toRecord(found[0]!);
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
  const rows = await em.execute<OperationRow[]>(`select ${COLUMNS} from operations where id = ?`, [id]);
  return rows[0] ? toRecord(rows[0]) : null;
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
    const rows = await tx.execute<OperationRow[]>(`select ${COLUMNS} from operations where id = ? for update`, [operationId]);
    if (!rows[0]) return 'missing';
    const op = toRecord(rows[0]);
    if (op.status !== 'pending') {
      await tx.execute('delete from operation_outbox where operation_id = ?', [op.id], 'run');
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
      await tx.execute(`update operations set status = 'success', tx_hash = ?, settled_at = now() where id = ?`, [result.txHash, op.id], 'run');
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
      await tx.execute(
        `update operations set status = 'failed', failure_code = ?, settled_at = now() where id = ?`,
        [result.failureCode, op.id],
        'run',
      );
    }
    await tx.execute('delete from operation_outbox where operation_id = ?', [op.id], 'run');
    return result.ok ? 'settled' : 'failed';
  });
}

/** Operations whose outbox row is older than `olderThanMs`: committed but maybe never enqueued. */
export async function staleOutbox(em: Em, olderThanMs: number, limit = 500): Promise<string[]> {
  const rows = await em.execute<Array<{ operation_id: string }>>(
    `select operation_id from operation_outbox where created_at < now() - (? * interval '1 millisecond') order by created_at limit ?`,
    [olderThanMs, limit],
  );
  return rows.map((r) => r.operation_id);
}

/** Polls an operation (first after a few ms) until it is final or the time is up (the synchronous wait of deposit/withdraw). */
export async function waitForFinal(em: Em, id: string, timeoutMs: number): Promise<OperationRecord> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  await new Promise((r) => setTimeout(r, Math.min(delay, timeoutMs))); // just enqueued: not settled yet
  for (;;) {
    const op = await findOperation(em.fork(), id);
    if (!op) throw new Error(`operation ${id} vanished`);
    if (op.status !== 'pending' || Date.now() >= deadline) return op;
    await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(1, deadline - Date.now()))));
    delay = Math.min(100, Math.ceil(delay * 1.5));
  }
}
