// A user's deposits and withdrawals (GET /v1/users/operations, and GET /v1/users/operations/{operation_id}, which
// answers the same record): newest first, keyset-paged like the lobby (the last row's time and id, signed with
// the filters: src/domain/keyset-cursor.ts), each with the chain side's stored details. Nothing here asks the
// chain node: confirmations are counted from stored blocks (confirmationsOf).
import type { Em } from '../../db/orm.js';
import { type OperationHistoryRow } from '../../db/repositories/operation-history.repository.js';
import { NotFound, isUuid } from '../errors.js';
import { KeysetCursors } from '../keyset-cursor.js';
import { DEPOSIT_CURSOR } from '../settlement/onchain/deposits.js';
import type { OperationKind, OperationStatus } from './operations.js';
import { repos } from '../../db/repos.js';

export interface OperationDetail {
  id: string;
  kind: OperationKind;
  status: OperationStatus;
  amount: bigint;
  /** Charged on top of the amount (issue 34); 0 until fees exist. */
  fee: bigint;
  destinationAddress: string | null;
  txHash: string | null;
  /** Every transaction sent for it, first attempt first (or the custodial transfer credited); [] in demo mode. */
  txHashes: string[];
  confirmations: number | null;
  /** Why a pending operation waits (issues 33, 34, 39); null until recorded. */
  pendingReason: string | null;
  failureCode: string | null;
  createdAtMs: number;
  settledAtMs: number | null;
}

/** What the history needs of the deployment: CHAIN_CONFIRMATIONS in the onchain mode, else null. */
export interface HistorySettings {
  confirmations: number | null;
}

/** A withdrawal's fee (operations.fee_micros), and why a pending operation waits (operations.pending_reason). */
export function feeAndPendingReason(row: OperationHistoryRow): { fee: bigint; pendingReason: string | null } {
  return { fee: row.fee_micros, pendingReason: row.status === 'pending' ? row.pending_reason : null };
}

/**
 * Confirmations from what is stored, never from the node: none until a mined block is recorded (a pending
 * operation, a failure without a mined transaction, the demo mode). The workers record a transaction's block
 * once it has CHAIN_CONFIRMATIONS (`required`), so it had at least that many then; where the deposit listener
 * runs, its cursor (the last confirmed block it scanned, head - required + 1 when it read the head) tells
 * how far the chain has grown since.
 */
export function confirmationsOf(minedBlock: bigint | null, listenerBlock: bigint | null, required: number | null): number | null {
  if (minedBlock === null) return null;
  const n = BigInt(required ?? 1);
  const seenHead = listenerBlock === null ? minedBlock + n - 1n : listenerBlock + n - 1n;
  const count = seenHead - minedBlock + 1n;
  return Number(count > n ? count : n);
}

function detailOf(r: OperationHistoryRow, settings: HistorySettings): OperationDetail {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    amount: r.amount,
    destinationAddress: r.destination_address,
    txHash: r.tx_hash,
    txHashes: r.tx_hashes,
    confirmations: confirmationsOf(r.mined_block, r.listener_block, settings.confirmations),
    failureCode: r.failure_code,
    createdAtMs: Math.floor(r.created_us / 1000),
    settledAtMs: r.settled_us === null ? null : Math.floor(r.settled_us / 1000),
    ...feeAndPendingReason(r),
  };
}

export interface OperationsQuery {
  kind?: OperationKind | undefined;
  status?: OperationStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** One page of the user's operations, newest first. The cursor's time is the row's created_at in microseconds. */
export async function listOperations(
  em: Em,
  userId: string,
  q: OperationsQuery,
  settings: HistorySettings,
): Promise<{ operations: OperationDetail[]; nextCursor: string | null }> {
  const cursors = await KeysetCursors.of(em, 'operations');
  const filters = q.kind || q.status ? `${q.kind ?? ''}:${q.status ?? ''}` : null;
  const after = cursors.decode(q.cursor, filters);
  const rows = await repos(em).operationHistory.page(userId, {
    kind: q.kind ?? null,
    status: q.status ?? null,
    after: after && { createdUs: after.atMs, id: after.id },
    limit: q.limit + 1,
    listenerCursor: DEPOSIT_CURSOR,
  });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    operations: page.map((r) => detailOf(r, settings)),
    nextCursor: rows.length > q.limit && last ? cursors.encode({ atMs: last.created_us, id: last.id }, filters) : null,
  };
}

/** The caller's own operation with its details; another user's is exactly as unknown as a missing one. */
export async function getOperationDetail(em: Em, userId: string, id: string, settings: HistorySettings): Promise<OperationDetail> {
  const [row] = isUuid(id)
    ? await repos(em).operationHistory.page(userId, { kind: null, status: null, after: null, id, limit: 1, listenerCursor: DEPOSIT_CURSOR })
    : [];
  if (!row) throw new NotFound('OPERATION_NOT_FOUND', 'no operation with this id for this user');
  return detailOf(row, settings);
}
