// RFQ trading's SQL (docs/trading.md, "The RFQ lifecycle", "Quotes"): RFQs, quotes, and what a fill writes (the position, its
// legs and fills, quote outcomes, trading counters). Every statement runs in the caller's transaction; the
// set-based ones bind their arrays as one parameter each (the statement text is the same for 1 row or 9).
// Lock order everywhere: RFQ row -> quote rows -> ledger accounts (the ledger locks its rows itself).
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8 } from '../int8.js';
import { anyOf } from '../sql.js';
import { postingCtes, type PostingRows } from './ledger.repository.js';

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

const QUOTE_COLUMNS = [
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

export interface NewQuoteRow {
  id: string;
  rfqId: string;
  makerAddress: string;
  makerUserId: string | null;
  clientQuoteId: string | null;
  oddsBps: number;
  maxFill: bigint;
  validUntilMs: number;
  signature: string;
  receivedAtMs: number;
}

/** What recordQuote decided, with the rows it read or wrote. */
export interface RecordedQuote {
  /** ok: recorded; prior: the client_quote_id was used before (see prior_*); else the refusal. */
  verdict: 'ok' | 'prior' | 'unknown_rfq' | 'unknown_market_maker' | 'mmp_triggered' | 'rfq_closed' | 'self_trade' | 'insufficient_collateral';
  replaced_id: string | null;
  replaced_client_quote_id: string | null;
  replaced_odds_bps: number | null;
  prior_id: string | null;
  prior_rfq_id: string | null;
  prior_odds_bps: number | null;
  prior_max_fill: string | null;
  prior_valid_until_ms: string | null;
  prior_signature: string | null;
}

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
   * Inserts the RFQ unless the (taker, nonce) is taken or the taker already has `maxOpen` open RFQs, in ONE
   * statement (the count runs in the insert's own snapshot: after the caller's lock that serialises the
   * taker's creates, so it is exact), with `ledger` (the stake's reservation, planned against the locked
   * accounts) written by the same statement when the row is. Returns the new row as stored, or undefined
   * when nothing was inserted (the caller tells the two apart with byNonce / countOpen, off the common path).
   */
  async insert(r: NewRfqRow, maxOpen: number, ledger: PostingRows | null = null): Promise<RfqRow | undefined> {
    const open = sql<string>`(select count(*) from rfqs where taker_user_id = ${r.takerUserId}::uuid and status = 'open')`;
    // Each column with its value, so the insert's column list and its select list cannot drift apart.
    const values = [
      ['id', sql`${r.id}::uuid`],
      ['taker_user_id', sql`${r.takerUserId}::uuid`],
      ['taker_address', sql`${r.takerAddress}::text`],
      ['nonce', sql`${int8(r.nonce)}::int8`],
      ['order_hash', sql`${r.orderHash}::text`],
      ['signature', sql`${r.signature}::text`],
      ['legs', sql`${JSON.stringify(r.legs)}::jsonb`],
      ['stake', sql`${int8(r.stake)}::int8`],
      ['min_odds_bps', sql`${r.minOddsBps}::integer`],
      ['order_type', sql`${r.orderType}::text`],
      ['fill_mode', sql`${r.fillMode}::text`],
      ['deadline_ms', sql`${int8(r.deadlineMs)}::int8`],
      ['quote_deadline_ms', sql`${int8(r.quoteDeadlineMs)}::int8`],
      ['expires_at_ms', sql`${int8(r.expiresAtMs)}::int8`],
      ['due_at_ms', sql`${int8(r.dueAtMs)}::int8`],
      ['created_at_ms', sql`${int8(r.createdAtMs)}::int8`],
      ['idempotency_key', sql`${r.idempotencyKey}::uuid`],
    ] as const;
    const ins = sql`ins as (insert into rfqs (${sql.join(values.map(([column]) => sql.ref(column)))})
        select ${sql.join(values.map(([, value]) => value))} where ${open} < ${maxOpen}
        on conflict on constraint rfqs_taker_nonce_key do nothing
        returning ${sql.join(RFQ_COLUMNS.map((c) => sql.ref(c)))})`;
    // The stake's reservation, written in the same statement only when the RFQ was inserted.
    const parts = [ins, ...(ledger?.txs.length ? postingCtes(ledger, sql`exists (select 1 from ins)`) : [])];
    const { rows } = await sql<RfqRow>`with ${sql.join(parts)} select * from ins`.execute(this.db);
    return rows[0];
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
   * Every quote of the RFQ, locked (after the RFQ row), best first: the live ones whose maker was not
   * removed (`maker_removed`) are the candidates. With each maker's available balance read WITHOUT a lock (the
   * close allocates on it, then locks only the makers it chose and checks again: src/domain/rfq/fill.ts).
   */
  quotesLocked(rfqId: string) {
    return this.db
      .selectFrom('rfq_quotes')
      .leftJoin('ledger_accounts as a', (j) => j.onRef('a.user_id', '=', 'rfq_quotes.maker_user_id').on('a.kind', '=', sql.lit('user_available')))
      .select(QUOTE_COLUMNS.map((c) => `rfq_quotes.${c}` as const))
      .select('a.balance as maker_available')
      .select(
        sql<boolean>`exists (select 1 from market_makers m where lower(m.wallet_address) = rfq_quotes.maker_address and m.removed_at is not null)`.as(
          'maker_removed',
        ),
      )
      .where('rfq_quotes.rfq_id', '=', rfqId)
      .orderBy('rfq_quotes.odds_bps', 'desc')
      .orderBy('rfq_quotes.received_at_ms')
      .orderBy('rfq_quotes.id')
      .forUpdate('rfq_quotes')
      .execute();
  }

  /**
   * A maker's quote in ONE autocommit statement (data-modifying CTEs): the RFQ held FOR SHARE for the
   * statement (a quote never lands on an RFQ that is closing), the client_quote_id looked up, the checks
   * (open, not past its deadlines, not the taker, the maker's user and an unlocked read of its available
   * balance against the liability of min(stake, max_fill) at the quoted odds, rounded up), the maker's
   * live quote replaced and the new one inserted, `valid_until_ms` capped at the RFQ's expiry. The insert
   * reads the replacement's result, so it runs after it (the one-live-quote index sees the old one gone).
   */
  async recordQuote(q: Omit<NewQuoteRow, 'makerUserId'>): Promise<RecordedQuote> {
    const maxFill = sql`${int8(q.maxFill)}::int8`;
    const { rows } = await sql<RecordedQuote>`
      with r as (
        select id, status, taker_address, stake, expires_at_ms, quote_deadline_ms, fill_mode from rfqs where id = ${q.rfqId}::uuid for share
      ),
      m as (
        select u.id as user_id, coalesce(a.balance, 0) as available from users u
          left join ledger_accounts a on a.user_id = u.id and a.kind = 'user_available'
        where lower(u.wallet_address) = ${q.makerAddress} limit 1
      ),
      -- The maker's registration, FOR SHARE: a removal committing meanwhile is waited for and then seen, and a
      -- removal starting later waits for this statement. No row: never registered (in-process callers, tests).
      mm as (
        select m.removed_at is not null as removed from market_makers m where lower(m.wallet_address) = ${q.makerAddress} for share
      ),
      -- Market-maker protection, FOR SHARE (ordered against a trip): a tripped maker quotes nothing until it resets.
      mmp as (
        select p.tripped_at_ms is not null as tripped from mm_protections p where p.maker_address = ${q.makerAddress} for share
      ),
      prior as (
        select id, rfq_id, odds_bps, max_fill, valid_until_ms, signature from rfq_quotes
        where ${q.clientQuoteId}::uuid is not null and maker_address = ${q.makerAddress} and client_quote_id = ${q.clientQuoteId}::uuid
      ),
      verdict as (
        select case
          when exists (select 1 from prior) then 'prior'
          when r.id is null then 'unknown_rfq'
          when exists (select 1 from mm where removed) then 'unknown_market_maker'
          when exists (select 1 from mmp where tripped) then 'mmp_triggered'
          when r.status <> 'open' or ${int8(q.receivedAtMs)}::int8 >= r.expires_at_ms
            or (r.fill_mode = 'best' and ${int8(q.receivedAtMs)}::int8 >= r.quote_deadline_ms) then 'rfq_closed'
          when r.taker_address = ${q.makerAddress} then 'self_trade'
          when m.user_id is null
            or m.available < (least(r.stake, ${maxFill}) * ${q.oddsBps}::int8 + 9999) / 10000 - least(r.stake, ${maxFill}) then 'insufficient_collateral'
          else 'ok' end as v,
          m.user_id, r.expires_at_ms
        from (select 1) one left join r on true left join m on true
      ),
      replaced as (
        update rfq_quotes set status = 'replaced', reason = 'replaced'
        where rfq_id = ${q.rfqId}::uuid and maker_address = ${q.makerAddress} and status = 'live' and (select v from verdict) = 'ok'
        returning id, client_quote_id, odds_bps
      ),
      ins as (
        insert into rfq_quotes (id, rfq_id, maker_address, maker_user_id, client_quote_id, odds_bps, max_fill, valid_until_ms, signature, received_at_ms)
        select ${q.id}::uuid, ${q.rfqId}::uuid, ${q.makerAddress}, v.user_id, ${q.clientQuoteId}::uuid, ${q.oddsBps}::integer, ${maxFill},
          least(${int8(q.validUntilMs)}::int8, v.expires_at_ms), ${q.signature}, ${int8(q.receivedAtMs)}::int8
        from verdict v where v.v = 'ok' and (select count(*) from replaced) >= 0
        returning id
      )
      select (select v from verdict) as verdict,
        rp.id as replaced_id, rp.client_quote_id as replaced_client_quote_id, rp.odds_bps as replaced_odds_bps,
        p.id as prior_id, p.rfq_id as prior_rfq_id, p.odds_bps as prior_odds_bps, p.max_fill::text as prior_max_fill,
        p.valid_until_ms::text as prior_valid_until_ms, p.signature as prior_signature
      from (select count(*) from ins) done left join replaced rp on true left join prior p on true`.execute(this.db);
    return rows[0]!;
  }

  /** A live quote that cannot fill (a failed accept) becomes `rejected` with `reason`; returns it (or nothing). */
  rejectLive(rfqId: string, quoteId: string, reason: string) {
    return this.db
      .updateTable('rfq_quotes')
      .set({ status: 'rejected', reason })
      .where('id', '=', quoteId)
      .where('rfq_id', '=', rfqId)
      .where('status', '=', sql.lit('live'))
      .returning(['id', 'client_quote_id', 'maker_address', 'odds_bps'])
      .executeTakeFirst();
  }

  cancelQuote(rfqId: string, quoteId: string, makerAddress: string) {
    return this.db
      .updateTable('rfq_quotes')
      .set({ status: 'cancelled', reason: null })
      .where('id', '=', quoteId)
      .where('rfq_id', '=', rfqId)
      .where('maker_address', '=', makerAddress)
      .where('status', '=', sql.lit('live'))
      .returning(['id', 'client_quote_id'])
      .executeTakeFirst();
  }
}

export const rfqRepository = (db: Db) => new RfqRepository(db);
