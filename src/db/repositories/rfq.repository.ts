// RFQ trading's SQL (docs/trading.md, "The RFQ lifecycle", "Quotes"): RFQs, quotes, and what a fill writes (the position, its
// legs and fills, quote outcomes, trading counters). Every statement runs in the caller's transaction; the
// set-based ones bind their arrays as one parameter each (the statement text is the same for 1 row or 9).
// Lock order everywhere: RFQ row -> quote rows -> ledger accounts (the ledger locks its rows itself).
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigint, int8ToNumber, int8ToNumberOrNull } from '../int8.js';
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
  balance: bigint;
}

/** A quote as rfq_lock_for_close returns it: locked, with its maker's accounts read without a lock. */
interface LockedExtra {
  maker_available_id: string | null;
  maker_available: bigint | null;
  maker_reserved_id: string | null;
  maker_removed: boolean;
}
export type LockedQuoteRow = QuoteRow & LockedExtra;

export interface LockedForClose {
  rfq: RfqRow;
  takerAccounts: AccountRow[];
  /** Every quote of the RFQ (none unless it is open), best first. */
  quotes: LockedQuoteRow[];
}

const rfqSelect = (db: Db) => db.selectFrom('rfqs').select(RFQ_COLUMNS);
const quoteSelect = (db: Db) => db.selectFrom('rfq_quotes').select(QUOTE_COLUMNS);
type DbRfqRow = Awaited<ReturnType<ReturnType<typeof rfqSelect>['executeTakeFirstOrThrow']>>;
type DbQuoteRow = Awaited<ReturnType<ReturnType<typeof quoteSelect>['executeTakeFirstOrThrow']>>;

/** An RFQ row, its int8 columns parsed here (src/db/int8.ts): amounts as bigint, the nonce and times as numbers. */
export type RfqRow = Omit<
  DbRfqRow,
  'nonce' | 'stake' | 'deadline_ms' | 'quote_deadline_ms' | 'expires_at_ms' | 'created_at_ms' | 'closed_at_ms' | 'filled_stake' | 'payout'
> & {
  nonce: number;
  stake: bigint;
  deadline_ms: number;
  quote_deadline_ms: number;
  expires_at_ms: number;
  created_at_ms: number;
  closed_at_ms: number | null;
  filled_stake: bigint;
  payout: bigint | null;
};

/** A quote row, its int8 columns parsed. */
export type QuoteRow = Omit<DbQuoteRow, 'max_fill' | 'valid_until_ms' | 'filled_stake' | 'received_at_ms'> & {
  max_fill: bigint;
  valid_until_ms: number;
  filled_stake: bigint;
  received_at_ms: number;
};

function parseRfq(r: DbRfqRow): RfqRow {
  return {
    ...r,
    nonce: int8ToNumber(r.nonce),
    stake: int8ToBigint(r.stake),
    deadline_ms: int8ToNumber(r.deadline_ms),
    quote_deadline_ms: int8ToNumber(r.quote_deadline_ms),
    expires_at_ms: int8ToNumber(r.expires_at_ms),
    created_at_ms: int8ToNumber(r.created_at_ms),
    closed_at_ms: int8ToNumberOrNull(r.closed_at_ms),
    filled_stake: int8ToBigint(r.filled_stake),
    payout: r.payout === null ? null : int8ToBigint(r.payout),
  };
}

function parseQuote<Q extends DbQuoteRow>(q: Q): Omit<Q, keyof QuoteRow> & QuoteRow {
  return {
    ...q,
    max_fill: int8ToBigint(q.max_fill),
    valid_until_ms: int8ToNumber(q.valid_until_ms),
    filled_stake: int8ToBigint(q.filled_stake),
    received_at_ms: int8ToNumber(q.received_at_ms),
  };
}

export class RfqRepository {
  constructor(private readonly db: Db) {}

  /** RFQ windows among `ids` (contest markets are not tradeable by RFQ). */
  async windows(ids: readonly number[]): Promise<Array<{ market_id: number; asset: string; duration_secs: number; start_at_ms: number }>> {
    const rows = await this.db
      .selectFrom('markets')
      .select(['market_id', 'asset', 'duration_secs', 'start_at_ms'])
      .where('kind', '=', sql.lit('rfq_window'))
      .where('market_id', '=', anyOf(ids.map(String), 'bigint'))
      .$narrowType<{ asset: string; duration_secs: number; start_at_ms: string }>()
      .execute();
    return rows.map((r) => ({ ...r, market_id: int8ToNumber(r.market_id), start_at_ms: int8ToNumber(r.start_at_ms) }));
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
    const { rows } = await sql<{
      verdict: RfqCreateVerdict;
    }>`select rfq_create(${r.id}::uuid, ${r.takerUserId}::uuid, ${r.takerAddress}::text,
        ${int8(r.nonce)}::int8, ${r.orderHash}::text, ${r.signature}::text, ${JSON.stringify(r.legs)}::jsonb, ${int8(r.stake)}::int8,
        ${r.minOddsBps}::integer, ${r.orderType}::text, ${r.fillMode}::text, ${int8(r.deadlineMs)}::int8, ${int8(r.quoteDeadlineMs)}::int8,
        ${int8(r.expiresAtMs)}::int8, ${int8(r.dueAtMs)}::int8, ${int8(r.createdAtMs)}::int8, ${r.idempotencyKey}::uuid, ${maxOpen}::integer,
        ${reserveTx}::uuid) as verdict`.execute(this.db);
    return rows[0]!.verdict;
  }

  /** `lock`: 'update' for a close, 'share' for a quote insert (a quote never lands on a closing RFQ). */
  async get(id: string, lock: 'update' | 'share' | null = null): Promise<RfqRow | undefined> {
    let q = rfqSelect(this.db).where('id', '=', id);
    if (lock === 'update') q = q.forUpdate();
    if (lock === 'share') q = q.forShare();
    const row = await q.executeTakeFirst();
    return row && parseRfq(row);
  }

  /** A taker's RFQs, newest first, after the keyset position (created_at_ms, id). */
  async page(userId: string, status: string | null, after: { createdAtMs: number; id: string } | null, limit: number): Promise<RfqRow[]> {
    let q = rfqSelect(this.db).where('taker_user_id', '=', userId);
    if (status) q = q.where('status', '=', status as 'open');
    if (after) q = q.where(sql<boolean>`(created_at_ms, id) < (${int8(after.createdAtMs)}::int8, ${after.id}::uuid)`);
    return (await q.orderBy('created_at_ms', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(parseRfq);
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

  async quotes(rfqIds: readonly string[]): Promise<QuoteRow[]> {
    return (await quoteSelect(this.db).where('rfq_id', '=', anyOf(rfqIds, 'uuid')).execute()).map(parseQuote);
  }

  /** The maker's live quotes on every RFQ, oldest first (rfq_quotes_maker_live_idx). */
  async makerLiveQuotes(makerAddress: string, limit: number): Promise<QuoteRow[]> {
    const rows = await quoteSelect(this.db)
      .where('maker_address', '=', makerAddress)
      .where('status', '=', sql.lit('live'))
      .orderBy('received_at_ms')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(parseQuote);
  }

  async makerQuotes(rfqId: string, makerAddress: string): Promise<QuoteRow[]> {
    return (await quoteSelect(this.db).where('rfq_id', '=', rfqId).where('maker_address', '=', makerAddress).execute()).map(parseQuote);
  }

  /**
   * For a close, accept or cancel, in ONE client statement (rfq_lock_for_close): the RFQ locked FOR UPDATE,
   * then (open only) every quote locked after it, best first, with each quoting maker's account ids and
   * available balance and the taker's accounts read WITHOUT a lock (the close allocates on them; its write
   * statement locks the accounts it posts to: src/domain/rfq/fill.ts). Undefined when there is no such RFQ.
   */
  async lockForClose(rfqId: string): Promise<LockedForClose | undefined> {
    // JSON with int8 as text (rfq_lock_for_close), parsed as the other reads are.
    type Json<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] extends bigint | null ? string | null : T[K] };
    const { rows } = await sql<{
      rfq_row: DbRfqRow;
      taker_accounts: Array<Json<AccountRow>>;
      quote_rows: Array<DbQuoteRow & Json<LockedExtra>>;
    }>`
      select rfq_row, taker_accounts, quote_rows from rfq_lock_for_close(${rfqId}::uuid)`.execute(this.db);
    const row = rows[0];
    if (!row) return undefined;
    return {
      rfq: parseRfq(row.rfq_row),
      takerAccounts: row.taker_accounts.map((a) => ({ ...a, balance: int8ToBigint(a.balance) })),
      quotes: row.quote_rows.map((q) => ({
        ...parseQuote(q),
        maker_available: q.maker_available === null ? null : int8ToBigint(q.maker_available),
      })),
    };
  }
}
