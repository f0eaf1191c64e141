// Onchain settlement's SQL (src/domain/settlement/onchain/): the settlement wallet's nonces, the signed
// transactions of each operation, their recorded outcomes, and the pull-deposit check's per-user sum.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigint } from '../int8.js';
import { anyOf } from '../sql.js';

/** `dropped` was recorded by earlier versions when a foreign transaction seemed to take the nonce; it is never written now (docs/settlement.md). */
export type ReceiptStatus = 'success' | 'reverted' | 'dropped';

/**
 * Why a pending operation waits (operations.pending_reason; docs/settlement.md, "Why an operation waits"); `review`: a
 * withdrawal held for an operator (src/domain/money/withdrawal-review.ts).
 */
export type PendingReason =
  | 'receipt_missing'
  | 'needs_review'
  | 'confirmations'
  | 'mempool'
  | 'queued'
  | 'nonce_gap'
  | 'fee_cap'
  | 'hot_wallet_funds'
  | 'gas'
  | 'token_paused'
  | 'hot_wallet_blocked'
  | 'review'
  | 'signer';

export interface ChainTxRow {
  hash: string;
  nonce: bigint;
  attempt: number;
  raw: string;
  /** Wei. */
  max_fee_per_gas: bigint;
  max_priority_fee_per_gas: bigint;
  receipt_status: ReceiptStatus | null;
}

export interface OperationForChain {
  id: string;
  kind: 'deposit' | 'withdraw';
  status: 'pending' | 'success' | 'failed';
  /** USDC micros. */
  amount: bigint;
  destination_address: string | null;
  /** The user's wallet: a pull deposit's source. */
  wallet_address: string;
  pending_reason: PendingReason | null;
  /** When pending_reason began (ms since the epoch). */
  pending_reason_at_ms: number | null;
}

const TX_COLUMNS = ['hash', 'nonce', 'attempt', 'raw', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'receipt_status'] as const;

/** A chain_transactions row as read (int8 columns as text), with its nonce and fees parsed; the other columns kept as they are. */
export function toTxRow<
  R extends { nonce: string; max_fee_per_gas: string; max_priority_fee_per_gas: string; receipt_status: string | null },
>(
  r: R,
): Omit<R, 'nonce' | 'max_fee_per_gas' | 'max_priority_fee_per_gas' | 'receipt_status'> &
  Pick<ChainTxRow, 'nonce' | 'max_fee_per_gas' | 'max_priority_fee_per_gas' | 'receipt_status'> {
  return {
    ...r,
    nonce: int8ToBigint(r.nonce),
    max_fee_per_gas: int8ToBigint(r.max_fee_per_gas),
    max_priority_fee_per_gas: int8ToBigint(r.max_priority_fee_per_gas),
    receipt_status: r.receipt_status as ReceiptStatus | null,
  };
}

export class ChainRepository {
  constructor(private readonly db: Db) {}

  /** The nonce row of a sender, starting at `nodeNonce` when it has none yet (start-up only). */
  async ensureNonce(chainId: number, address: string, nodeNonce: bigint): Promise<void> {
    await this.db
      .insertInto('chain_nonces')
      .values({ chain_id: chainId, address, next_nonce: int8(nodeNonce) })
      .onConflict((oc) => oc.columns(['chain_id', 'address']).doNothing())
      .execute();
  }

  /** The operation with its user's wallet, locked (FOR UPDATE OF operations) when `lock`. */
  async operation(id: string, lock: boolean): Promise<OperationForChain | undefined> {
    const q = this.db
      .selectFrom('operations as o')
      .innerJoin('users as u', 'u.id', 'o.user_id')
      .select([
        'o.id',
        'o.kind',
        'o.status',
        'o.amount',
        'o.destination_address',
        'u.wallet_address',
        'o.pending_reason',
        'o.pending_reason_at',
      ])
      .where('o.id', '=', id);
    const row = await (lock ? q.forUpdate('o') : q).executeTakeFirst();
    if (!row) return undefined;
    const { pending_reason_at, ...rest } = row;
    return {
      ...rest,
      amount: int8ToBigint(row.amount),
      pending_reason_at_ms: pending_reason_at === null ? null : new Date(pending_reason_at).getTime(),
    };
  }

  /** Every transaction the operation signed, first attempt first. */
  async transactions(operationId: string): Promise<ChainTxRow[]> {
    const rows = await this.db
      .selectFrom('chain_transactions')
      .select(TX_COLUMNS)
      .where('operation_id', '=', operationId)
      .orderBy('attempt')
      .execute();
    return rows.map(toTxRow);
  }

  /** The recorded outcomes of these operations (at most one per operation). */
  outcomes(operationIds: readonly string[]) {
    return this.db
      .selectFrom('chain_transactions')
      .select(['operation_id', 'hash', 'receipt_status'])
      .where('operation_id', '=', anyOf(operationIds, 'uuid'))
      .where('receipt_status', 'is not', null)
      .execute();
  }

  /**
   * Sets why the pending operation waits; `pending_reason_at` moves only when the reason changes. Answers the
   * reason's start (ms), or null when the operation is no longer pending.
   */
  async setPendingReason(operationId: string, reason: PendingReason | null): Promise<number | null> {
    const { rows } = await sql<{ at: string | Date | null }>`
      update operations set pending_reason = ${reason},
             pending_reason_at = case when pending_reason is not distinct from ${reason} then pending_reason_at
                                      when ${reason}::text is null then null else now() end
       where id = ${operationId} and status = 'pending'
      returning pending_reason_at as at`.execute(this.db);
    const at = rows[0]?.at;
    return at ? new Date(at).getTime() : null;
  }

  /** The outbox relay hands the operation to a worker again no earlier than `ms` from now. */
  async deferOutbox(operationId: string, ms: number): Promise<void> {
    await sql`update operation_outbox set due_at = now() + (${ms} * interval '1 millisecond') where operation_id = ${operationId}`.execute(
      this.db,
    );
  }

  /** Operators' resolutions of these operations (settlement_resolutions). */
  resolutions(operationIds: readonly string[]) {
    return this.db
      .selectFrom('settlement_resolutions')
      .select(['operation_id', 'outcome', 'tx_hash', 'failure_code'])
      .where('operation_id', '=', anyOf(operationIds, 'uuid'))
      .execute();
  }

  /** Records an operator's resolution; false when the operation already has one. */
  async insertResolution(r: {
    operationId: string;
    outcome: 'success' | 'failed';
    txHash: string | null;
    reason: string;
    operator: string;
    failureCode?: string;
  }) {
    const row = await this.db
      .insertInto('settlement_resolutions')
      .values({
        operation_id: r.operationId,
        outcome: r.outcome,
        tx_hash: r.txHash,
        reason: r.reason,
        operator: r.operator,
        failure_code: r.failureCode ?? null,
      })
      .onConflict((oc) => oc.column('operation_id').doNothing())
      .returning('operation_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Pending operations waiting for `reason`, newest first, with their user and destination (the operator's review queue). */
  async waiting(reason: PendingReason, limit: number) {
    const rows = await this.db
      .selectFrom('operations')
      .select([
        'id',
        'user_id',
        'kind',
        'status',
        'amount',
        'destination_address',
        'tx_hash',
        'failure_code',
        'created_at',
        'pending_reason',
        'pending_reason_at',
      ])
      .where('status', '=', 'pending')
      .where('pending_reason', '=', reason)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, amount: int8ToBigint(r.amount) }));
  }

  /** One operation as the operator sees it. */
  async adminOperation(id: string) {
    const row = await this.db
      .selectFrom('operations')
      .select([
        'id',
        'user_id',
        'kind',
        'status',
        'amount',
        'destination_address',
        'tx_hash',
        'failure_code',
        'created_at',
        'pending_reason',
        'pending_reason_at',
      ])
      .where('id', '=', id)
      .executeTakeFirst();
    return row && { ...row, amount: int8ToBigint(row.amount) };
  }

  /** Every transaction of these operations, by operation, first attempt first. */
  async transactionsOf(operationIds: readonly string[]) {
    const rows = await this.db
      .selectFrom('chain_transactions')
      .select(['operation_id', ...TX_COLUMNS, 'block_number'])
      .where('operation_id', '=', anyOf(operationIds, 'uuid'))
      .orderBy('operation_id')
      .orderBy('attempt')
      .execute();
    return rows.map((r) => ({ ...toTxRow(r), block_number: r.block_number === null ? null : int8ToBigint(r.block_number) }));
  }

  /** Locks the user's row (serialises their deposit checks) and sums their pending deposits, as int8 text. */
  async lockUserPendingDeposits(userId: string): Promise<bigint> {
    const { rows } = await sql<{ total: string }>`
      with locked as (select id from users where id = ${userId} for update)
      select (select coalesce(sum(o.amount), 0) from operations o, locked l
               where o.user_id = l.id and o.kind = 'deposit' and o.status = 'pending')::text as total`.execute(this.db);
    return int8ToBigint(rows[0]?.total ?? '0');
  }

  /** A user's custodial deposit index (users.deposit_index): the derivation index of their deposit address. */
  async depositIndex(userId: string): Promise<bigint | undefined> {
    const row = await this.db.selectFrom('users').select('deposit_index').where('id', '=', userId).executeTakeFirst();
    return row && int8ToBigint(row.deposit_index);
  }
}
