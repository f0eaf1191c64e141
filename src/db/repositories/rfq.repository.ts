// RFQ trading's SQL (docs/trading.md, "The RFQ lifecycle", "Quotes"): RFQs, quotes, and what a fill writes (the position, its
// legs and fills, quote outcomes, trading counters). Every statement runs in the caller's transaction; the
// set-based ones bind their arrays as one parameter each (the statement text is the same for 1 row or 9).
// Lock order everywhere: RFQ row -> quote rows -> ledger accounts (the ledger locks its rows itself).
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8 } from '../int8.js';
import { anyOf } from '../sql.js';

const RFQ_COLUMNS = [
  'id',
  'taker_user_id',
  'taker_address',
  'nonce',
  'order_hash',
  'signature',
  'legs',
  'stake',
  'min_odds_bps',
  'order_type',
  'fill_mode',
  'status',
  'deadline_ms',
  'quote_deadline_ms',
  'expires_at_ms',
  'created_at_ms',
  'closed_at_ms',
  'filled_stake',
  'payout',
  'odds_bps',
  'position_id',
  'close_reason',
  'idempotency_key',
] as const;

export const QUOTE_COLUMNS = [
  'id',
  'rfq_id',
  'maker_address',
  'maker_user_id',
  'client_quote_id',
  'odds_bps',
  'max_fill',
  'valid_until_ms',
  'signature',
  'status',
  'reason',
  'filled_stake',
  'received_at_ms',
] as const;

export interface NewRfqRow {
  id: string;
  takerUserId: string;
  takerAddress: string;
  nonce: number;
  orderHash: string;
  signature: string;
  legs: unknown;
  stake: bigint;
  minOddsBps: number;
  orderType: 'IOC' | 'FOK';
  fillMode: 'best' | 'manual';
  deadlineMs: number;
  quoteDeadlineMs: number;
  expiresAtMs: number;
  dueAtMs: number;
  createdAtMs: number;
  idempotencyKey: string;
}

export type RfqCreateVerdict = 'ok' | 'no_accounts' | 'not_inserted' | 'insufficient_balance';

/** A ledger account as rfq_lock_for_close reads it (no lock). */
export interface AccountRow {
  id: string;
  kind: 'user_available' | 'user_reserved';
  balance: string;
}

/** A quote as rfq_lock_for_close returns it: locked, with its maker's accounts read without a lock. */
export type LockedQuoteRow = QuoteRow & {
  maker_available_id: string | null;
  maker_available: string | null;
  maker_reserved_id: string | null;
  maker_removed: boolean;
};

export interface LockedForClose {
  rfq: RfqRow;
  takerAccounts: AccountRow[];
  /** Every quote of the RFQ (none unless it is open), best first. */
  quotes: LockedQuoteRow[];
}

/** A quote row as `quotes` selects it. */
export type QuoteRow = Awaited<ReturnType<RfqRepository['quotes']>>[number];

/** An RFQ row as `get` selects it. */
export type RfqRow = NonNullable<Awaited<ReturnType<RfqRepository['get']>>>;

export class RfqRepository {
  constructor(private readonly db: Db) {}

  /** RFQ windows among `ids` (contest markets are not tradeable by RFQ). */
  windows(ids: readonly number[]) {
    return this.db
      .selectFrom('markets')
      .select(['market_id', 'asset', 'duration_secs', 'start_at_ms'])
      .where('kind', '=', sql.lit('rfq_window'))
      .where('market_id', '=', anyOf(ids.map(String), 'bigint'))
      .$narrowType<{ asset: string; duration_secs: number; start_at_ms: string }>()
      .execute();
  }

  byNonce(takerAddress: string, nonce: number) {
    return this.db
      .selectFrom('rfqs')
      .select(['id', 'idempotency_key', 'order_hash'])
      .where('taker_address', '=', takerAddress)
      .where('nonce', '=', int8(nonce))
      .executeTakeFirst();
  }

  /** Serialises a user's RFQ creations (the open-RFQ limit is counted under this lock). */
  async lockUser(userId: string): Promise<boolean> {
    const row = await this.db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirst();
    return row !== undefined;
  }

  async countOpen(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('rfqs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('taker_user_id', '=', userId)
      .where('status', '=', sql.lit('open'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The create in ONE client statement (rfq_create, Migration20261126060000_rfq_fill_path): the taker's
   * accounts locked, then the open RFQs counted (exact under concurrent creates: the count's snapshot is
   * taken after the lock), the RFQ inserted unless the (taker, nonce) is taken or the taker has `maxOpen`
   * open RFQs, and the stake reserved (ledger transaction `reserveTx`) from user_available to user_reserved.
   */
  async create(r: NewRfqRow, maxOpen: number, reserveTx: string): Promise<RfqCreateVerdict> {
    const { rows } = await sql<{ verdict: RfqCreateVerdict }>`select rfq_create(${r.id}::uuid, ${r.takerUserId}::uuid, ${r.takerAddress}::text,
        ${int8(r.nonce)}::int8, ${r.orderHash}::text, ${r.signature}::text, ${JSON.stringify(r.legs)}::jsonb, ${int8(r.stake)}::int8,
        ${r.minOddsBps}::integer, ${r.orderType}::text, ${r.fillMode}::text, ${int8(r.deadlineMs)}::int8, ${int8(r.quoteDeadlineMs)}::int8,
        ${int8(r.expiresAtMs)}::int8, ${int8(r.dueAtMs)}::int8, ${int8(r.createdAtMs)}::int8, ${r.idempotencyKey}::uuid, ${maxOpen}::integer,
        ${reserveTx}::uuid) as verdict`.execute(this.db);
    return rows[0]!.verdict;
  }

  /** `lock`: 'update' for a close, 'share' for a quote insert (a quote never lands on a closing RFQ). */
  get(id: string, lock: 'update' | 'share' | null = null) {
    let q = this.db.selectFrom('rfqs').select(RFQ_COLUMNS).where('id', '=', id);
    if (lock === 'update') q = q.forUpdate();
    if (lock === 'share') q = q.forShare();
    return q.executeTakeFirst();
  }

  /** A taker's RFQs, newest first, after the keyset position (created_at_ms, id). */
  page(userId: string, status: string | null, after: { createdAtMs: number; id: string } | null, limit: number) {
    let q = this.db.selectFrom('rfqs').select(RFQ_COLUMNS).where('taker_user_id', '=', userId);
    if (status) q = q.where('status', '=', status as 'open');
    if (after) q = q.where(sql<boolean>`(created_at_ms, id) < (${int8(after.createdAtMs)}::int8, ${after.id}::uuid)`);
    return q.orderBy('created_at_ms', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** Open RFQs whose due time is at or before `atMs`, earliest first. */
  async due(atMs: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('rfqs')
      .select('id')
      .where('status', '=', sql.lit('open'))
      .where('due_at_ms', '<=', int8(atMs))
      .orderBy('due_at_ms')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  quotes(rfqIds: readonly string[]) {
    return this.db.selectFrom('rfq_quotes').select(QUOTE_COLUMNS).where('rfq_id', '=', anyOf(rfqIds, 'uuid')).execute();
  }

  /** The maker's live quotes on every RFQ, oldest first (rfq_quotes_maker_live_idx). */
  makerLiveQuotes(makerAddress: string, limit: number) {
    return this.db
      .selectFrom('rfq_quotes')
      .select(QUOTE_COLUMNS)
      .where('maker_address', '=', makerAddress)
      .where('status', '=', sql.lit('live'))
      .orderBy('received_at_ms')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  makerQuotes(rfqId: string, makerAddress: string) {
    return this.db.selectFrom('rfq_quotes').select(QUOTE_COLUMNS).where('rfq_id', '=', rfqId).where('maker_address', '=', makerAddress).execute();
  }

  /**
   * For a close, accept or cancel, in ONE client statement (rfq_lock_for_close): the RFQ locked FOR UPDATE,
   * then (open only) every quote locked after it, best first, with each quoting maker's account ids and
   * available balance and the taker's accounts read WITHOUT a lock (the close allocates on them; its write
   * statement locks the accounts it posts to: src/domain/rfq/fill.ts). Undefined when there is no such RFQ.
   */
  async lockForClose(rfqId: string): Promise<LockedForClose | undefined> {
    const { rows } = await sql<{ rfq_row: RfqRow; taker_accounts: AccountRow[]; quote_rows: LockedQuoteRow[] }>`
      select rfq_row, taker_accounts, quote_rows from rfq_lock_for_close(${rfqId}::uuid)`.execute(this.db);
    const row = rows[0];
    return row && { rfq: row.rfq_row, takerAccounts: row.taker_accounts, quotes: row.quote_rows };
  }
}

export const rfqRepository = (db: Db) => new RfqRepository(db);
