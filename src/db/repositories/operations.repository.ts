// Deposits, withdrawals and their outbox (src/domain/money/operations.ts), and the app-token credit's
// lookup of an earlier credit (src/domain/money/app-tokens.ts). Every statement runs in the caller's
// transaction; int8 amounts leave as bigint micros.
import { sql } from 'kysely';
import { int8, int8ToBigint } from '../int8.js';
import type { Db } from '../schema.js';
import { anyOf } from '../sql.js';

export type OperationKind = 'deposit' | 'withdraw';

const COLUMNS = [
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
  'fee_micros',
] as const;

const parse = <R extends { amount: string; fee_micros: string }>(r: R) => ({
  ...r,
  amount: int8ToBigint(r.amount),
  fee_micros: int8ToBigint(r.fee_micros),
});

export class OperationsRepository {
  constructor(private readonly db: Db) {}

  /**
   * The operation with its outbox row, in one statement (the outbox row only if the operation was
   * inserted); undefined when the (user, kind, key) exists. A `held` withdrawal (pending_reason review) gets no
   * outbox row: nothing hands it to a worker until an operator approves it.
   */
  async insert(o: {
    id: string;
    userId: string;
    kind: OperationKind;
    amount: bigint;
    fee?: bigint;
    destination: string | null;
    key: string | null;
    held?: boolean;
  }) {
    const held = o.held ?? false;
    const row = await this.db
      .with('op', (db) =>
        db
          .insertInto('operations')
          .values({
            id: o.id,
            user_id: o.userId,
            kind: o.kind,
            amount: int8(o.amount),
            fee_micros: int8(o.fee ?? 0n),
            destination_address: o.destination,
            idempotency_key: o.key,
            ...(held ? { pending_reason: 'review' as const, pending_reason_at: sql<string>`now()` } : {}),
          })
          .onConflict((oc) => oc.columns(['user_id', 'kind', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
          .returning(COLUMNS),
      )
      .with('outbox', (db) =>
        db
          .insertInto('operation_outbox')
          .columns(['operation_id'])
          .expression((eb) =>
            eb
              .selectFrom('op')
              .select('op.id')
              .where(sql<boolean>`${!held}`),
          ),
      )
      .selectFrom('op')
      .selectAll()
      .executeTakeFirst();
    return row && parse(row);
  }

  async findByKey(userId: string, kind: OperationKind, key: string | null) {
    const row = await this.db
      .selectFrom('operations')
      .select(COLUMNS)
      .where('user_id', '=', userId)
      .where('kind', '=', kind)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    return row && parse(row);
  }

  async find(id: string) {
    const row = await this.db.selectFrom('operations').select(COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && parse(row);
  }

  /** The settlement worker's lock on these operations, taken in id order (two batches never deadlock). */
  async findManyForUpdate(ids: readonly string[]) {
    return (
      await this.db.selectFrom('operations').select(COLUMNS).where('id', '=', anyOf(ids, 'uuid')).orderBy('id').forUpdate().execute()
    ).map(parse);
  }

  /**
   * Final statuses (`success` with its tx hash, `failed` with its code) and the outbox rows deleted, for
   * several operations in one statement.
   */
  async markFinal(f: {
    ids: readonly string[];
    statuses: ReadonlyArray<'success' | 'failed'>;
    txHashes: ReadonlyArray<string | null>;
    failureCodes: ReadonlyArray<string | null>;
  }) {
    await sql`
      with f(id, status, tx_hash, failure_code) as (
        select * from unnest(${f.ids}::uuid[], ${f.statuses}::text[], ${f.txHashes}::text[], ${f.failureCodes}::text[])),
      outbox as (delete from operation_outbox where operation_id in (select id from f))
      update operations o set status = f.status, tx_hash = f.tx_hash, failure_code = f.failure_code, settled_at = now(),
                              pending_reason = null, pending_reason_at = null
        from f where o.id = f.id`.execute(this.db);
  }

  async deleteOutboxes(operationIds: readonly string[]): Promise<void> {
    await this.db.deleteFrom('operation_outbox').where('operation_id', '=', anyOf(operationIds, 'uuid')).execute();
  }

  /** Outbox rows due more than `olderThanMs` ago (due_at: when the relay may next hand them to a worker), oldest first. */
  async staleOutbox(olderThanMs: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('operation_outbox')
      .select('operation_id')
      .where('due_at', '<', sql<string>`now() - (${olderThanMs} * interval '1 millisecond')`)
      .orderBy('due_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.operation_id);
  }

  async userExists(userId: string): Promise<boolean> {
    return (await this.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
  }

  /** The app-token credit already posted under this idempotency key: its transaction and the amount credited. */
  async earlierAppTokenCredit(userId: string, idempotencyKey: string) {
    const row = await this.db
      .selectFrom('ledger_transactions as t')
      .innerJoin('ledger_entries as e', 'e.transaction_id', 't.id')
      .innerJoin('ledger_accounts as a', (j) =>
        j.onRef('a.id', '=', 'e.account_id').on('a.user_id', '=', userId).on('a.kind', '=', 'user_app_token'),
      )
      .select(['t.id', 'e.amount'])
      .where('t.kind', '=', 'app_token_credit')
      .where('t.idempotency_key', '=', idempotencyKey)
      .executeTakeFirst();
    return row && { ...row, amount: int8ToBigint(row.amount) };
  }
}
