// The withdrawal controls' SQL (src/domain/money/withdrawals.ts, withdrawal-review.ts; docs/operations.md,
// "Custody"): the locks the limits are counted under, the rolling sums, the custodial-address lookup, and the
// review records. Every statement runs in the caller's transaction. A lock and the sum read under it are two
// statements on purpose: in READ COMMITTED a statement reads one snapshot, taken before it waits for a lock, so
// a sum in the locking statement would miss what the lock's previous holder committed.
import { sql } from 'kysely';
import { int8ToBigint } from '../int8.js';
import type { Db } from '../schema.js';
import { anyOf } from '../sql.js';

export type ReviewCause = 'above_review_threshold' | 'hourly_limit';
export type ReviewDecision = 'approved' | 'rejected';

export interface ReviewRow {
  operation_id: string;
  causes: ReviewCause[];
  held_at: Date | string;
  decision: ReviewDecision | null;
  reason: string | null;
  operator: string | null;
  decided_at: Date | string | null;
}

const REVIEW_COLUMNS = ['operation_id', 'causes', 'held_at', 'decision', 'reason', 'operator', 'decided_at'] as const;

export class WithdrawalsRepository {
  constructor(private readonly db: Db) {}

  /**
   * The user's row, locked until commit: one user's withdrawals one after the other (and after the user's pull-deposit
   * checks and RFQ creations, which lock it FOR UPDATE). FOR NO KEY UPDATE, not FOR UPDATE: it leaves the FOR KEY SHARE
   * of foreign-key checks free, so a settlement posting that updates this user's ledger account a second time in its
   * transaction (PostgreSQL checks the key again then) never waits for a withdrawal that waits for that posting.
   */
  async lockUser(userId: string): Promise<boolean> {
    return (await this.db.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().executeTakeFirst()) !== undefined;
  }

  /** What the user withdrew (amounts, fees aside) in the last `windowMs`: every withdrawal not failed, held ones included. */
  async userWithdrawnSince(userId: string, windowMs: number): Promise<bigint> {
    const { rows } = await sql<{ total: string }>`
      select coalesce(sum(amount), 0)::text as total from operations
       where user_id = ${userId} and kind = 'withdraw' and status <> 'failed'
         and created_at > now() - (${windowMs} * interval '1 millisecond')`.execute(this.db);
    return int8ToBigint(rows[0]?.total ?? '0');
  }

  /** The deployment's one withdrawal-volume lock, until commit: WITHDRAWALS_HOURLY_LIMIT_MICROS is counted under it. */
  async lockDeploymentVolume(): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext('crfq:withdrawals:hourly-volume'))`.execute(this.db);
  }

  /** What the deployment sent without review in the last `windowMs`: withdrawals not failed and never held. */
  async automaticWithdrawnSince(windowMs: number): Promise<bigint> {
    const { rows } = await sql<{ total: string }>`
      select coalesce(sum(o.amount), 0)::text as total from operations o
       where o.kind = 'withdraw' and o.status <> 'failed'
         and o.created_at > now() - (${windowMs} * interval '1 millisecond')
         and not exists (select 1 from withdrawal_reviews r where r.operation_id = o.id)`.execute(this.db);
    return int8ToBigint(rows[0]?.total ?? '0');
  }

  /** Whether any of these spellings of one address is a registered custodial deposit address. */
  async isDepositAddress(spellings: readonly string[]): Promise<boolean> {
    const row = await this.db
      .selectFrom('deposit_addresses')
      .select('address')
      .where('address', '=', anyOf(spellings, 'text'))
      .executeTakeFirst();
    return row !== undefined;
  }

  async insertReview(operationId: string, causes: readonly ReviewCause[]): Promise<void> {
    await this.db
      .insertInto('withdrawal_reviews')
      .values({ operation_id: operationId, causes: [...causes] })
      .execute();
  }

  /** The withdrawal and its review, both locked until commit (an approval and a rejection never interleave). */
  async lockForDecision(operationId: string) {
    const op = await this.db
      .selectFrom('operations')
      .select(['id', 'user_id', 'kind', 'status', 'amount', 'fee_micros', 'pending_reason'])
      .where('id', '=', operationId)
      .forUpdate()
      .executeTakeFirst();
    if (!op) return undefined;
    const review = await this.db
      .selectFrom('withdrawal_reviews')
      .select(REVIEW_COLUMNS)
      .where('operation_id', '=', operationId)
      .forUpdate()
      .executeTakeFirst();
    return { ...op, amount: int8ToBigint(op.amount), fee: int8ToBigint(op.fee_micros), review: review as ReviewRow | undefined };
  }

  async decide(d: { operationId: string; decision: ReviewDecision; reason: string | null; operator: string }): Promise<void> {
    await this.db
      .updateTable('withdrawal_reviews')
      .set({ decision: d.decision, reason: d.reason, operator: d.operator, decided_at: sql<string>`now()` })
      .where('operation_id', '=', d.operationId)
      .where('decision', 'is', null)
      .execute();
  }

  /** Hands an approved withdrawal to settlement: no longer held, and an outbox row (the relay's backstop for the enqueue). */
  async release(operationId: string): Promise<void> {
    await sql`
      with released as (
        update operations set pending_reason = null, pending_reason_at = null
         where id = ${operationId} and status = 'pending' and pending_reason = 'review' returning id)
      insert into operation_outbox (operation_id) select id from released`.execute(this.db);
  }

  /** The reviews of these operations (those that have one). */
  async reviewsOf(operationIds: readonly string[]): Promise<ReviewRow[]> {
    if (!operationIds.length) return [];
    return (await this.db
      .selectFrom('withdrawal_reviews')
      .select(REVIEW_COLUMNS)
      .where('operation_id', '=', anyOf(operationIds, 'uuid'))
      .execute()) as ReviewRow[];
  }

  /** The fees of these operations, by id. */
  async feesOf(operationIds: readonly string[]): Promise<Map<string, bigint>> {
    if (!operationIds.length) return new Map();
    const rows = await this.db
      .selectFrom('operations')
      .select(['id', 'fee_micros'])
      .where('id', '=', anyOf(operationIds, 'uuid'))
      .execute();
    return new Map(rows.map((r) => [r.id, int8ToBigint(r.fee_micros)]));
  }

  /** These operations as the operator sees them (the columns of ChainRepository.adminOperation), in no particular order. */
  async adminOperations(operationIds: readonly string[]) {
    if (!operationIds.length) return [];
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
      .where('id', '=', anyOf(operationIds, 'uuid'))
      .execute();
    return rows.map((r) => ({ ...r, amount: int8ToBigint(r.amount) }));
  }

  /** Operation ids of the reviews in `status`: waiting ones oldest first, decided ones newest decision first. */
  async reviewIds(status: 'review' | ReviewDecision, limit: number): Promise<string[]> {
    const q = this.db.selectFrom('withdrawal_reviews').select('operation_id').limit(limit);
    const rows =
      status === 'review'
        ? await q.where('decision', 'is', null).orderBy('held_at').orderBy('operation_id').execute()
        : await q.where('decision', '=', status).orderBy('decided_at', 'desc').orderBy('operation_id', 'desc').execute();
    return rows.map((r) => r.operation_id);
  }
}

export const withdrawalsRepository = (db: Db) => new WithdrawalsRepository(db);
