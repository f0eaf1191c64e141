// A user's deposits and withdrawals as GET /v1/users/operations lists them and GET /v1/users/operations/{id}
// answers one (src/domain/money/history.ts): the operation with what the chain side stored about it, in ONE
// statement per page: every transaction signed for it (chain_transactions, by attempt) or the custodial
// transfer credited (chain_deposits), the block of the mined one once recorded, and the deposit listener's
// cursor on that chain (the last confirmed block it scanned), from which the domain counts confirmations.
import { sql, type RawBuilder } from 'kysely';
import { int8, int8ToBigint, int8ToBigintOrNull, int8ToNumber } from '../int8.js';
import type { Db } from '../schema.js';

export interface OperationHistoryRow {
  id: string;
  kind: 'deposit' | 'withdraw';
  status: 'pending' | 'success' | 'failed';
  amount: bigint;
  destination_address: string | null;
  tx_hash: string | null;
  failure_code: string | null;
  /** Why a pending one waits (operations.pending_reason; docs/settlement.md). */
  pending_reason: string | null;
  /** A withdrawal's fee, micros (0 for deposits). */
  fee_micros: bigint;
  /** Epoch microseconds: the keyset's time (created_at keeps microseconds; a millisecond key could skip a row). */
  created_us: number;
  settled_us: number | null;
  tx_hashes: string[];
  /** The block of the transaction whose outcome was recorded (mined), or of the credited custodial transfer. */
  mined_block: bigint | null;
  /** The deposit listener's last scanned block on that chain (a confirmed block), when it runs. */
  listener_block: bigint | null;
}

export interface OperationHistoryQuery {
  kind: 'deposit' | 'withdraw' | null;
  status: 'pending' | 'success' | 'failed' | null;
  /** The keyset of the last row shown: (created_at in µs, id). */
  after: { createdUs: number; id: string } | null;
  /** One operation only (GET by id). */
  id?: string;
  limit: number;
  /** The deposit listener's row in chain_cursors. */
  listenerCursor: string;
}

const us = (column: RawBuilder<unknown>) => sql<string>`floor(extract(epoch from ${column}) * 1000000)::int8::text`;

export class OperationHistoryRepository {
  constructor(private readonly db: Db) {}

  /** The user's operations, newest first ((created_at, id) descending), after the keyset, with their chain details. */
  async page(userId: string, q: OperationHistoryQuery): Promise<OperationHistoryRow[]> {
    const conds = [sql`o.user_id = ${userId}::uuid`];
    if (q.kind) conds.push(sql`o.kind = ${q.kind}`);
    if (q.status) conds.push(sql`o.status = ${q.status}`);
    if (q.id) conds.push(sql`o.id = ${q.id}::uuid`);
    if (q.after) {
      conds.push(
        sql`(o.created_at, o.id) < (timestamptz 'epoch' + ${int8(q.after.createdUs)}::int8 * interval '1 microsecond', ${q.after.id}::uuid)`,
      );
    }
    const { rows } = await sql<{
      id: string;
      kind: 'deposit' | 'withdraw';
      status: 'pending' | 'success' | 'failed';
      amount: string;
      destination_address: string | null;
      tx_hash: string | null;
      failure_code: string | null;
      pending_reason: string | null;
      fee_micros: string;
      created_us: string;
      settled_us: string | null;
      tx_hashes: string[];
      mined_block: string | null;
      listener_block: string | null;
    }>`
      select o.id, o.kind, o.status, o.amount::text as amount, o.destination_address, o.tx_hash, o.failure_code, o.pending_reason, o.fee_micros::text as fee_micros,
             ${us(sql`o.created_at`)} as created_us, ${us(sql`o.settled_at`)} as settled_us,
             coalesce((select array_agg(t.hash order by t.attempt) from chain_transactions t where t.operation_id = o.id),
                      (select array_agg(d.tx_hash order by d.log_index) from chain_deposits d where d.operation_id = o.id),
                      '{}'::text[]) as tx_hashes,
             m.block_number::text as mined_block, c.block_number::text as listener_block
        from operations o
        left join lateral (
          select t.block_number, t.chain_id from chain_transactions t
           where t.operation_id = o.id and t.receipt_status in ('success', 'reverted') and t.block_number is not null
          union all
          select d.block_number, d.chain_id from chain_deposits d where d.operation_id = o.id
          limit 1) m on true
        left join chain_cursors c on c.chain_id = m.chain_id and c.name = ${q.listenerCursor}
       where ${sql.join(conds, sql` and `)}
       order by o.created_at desc, o.id desc
       limit ${q.limit}`.execute(this.db);
    return rows.map((r) => ({
      ...r,
      amount: int8ToBigint(r.amount),
      fee_micros: int8ToBigint(r.fee_micros),
      created_us: int8ToNumber(r.created_us),
      settled_us: r.settled_us === null ? null : int8ToNumber(r.settled_us),
      mined_block: int8ToBigintOrNull(r.mined_block),
      listener_block: int8ToBigintOrNull(r.listener_block),
    }));
  }
}
