// The market makers' quote statements (docs/trading.md, "Quotes"): recording a quote (one autocommit statement),
// rejecting a live quote a taker could not accept, a maker's cancel. Lock order as in rfq.repository.ts: the
// RFQ row (FOR SHARE here) before its quote rows.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigint, int8ToNumberOrNull } from '../int8.js';

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
  verdict:
    'ok' | 'prior' | 'unknown_rfq' | 'unknown_market_maker' | 'mmp_triggered' | 'rfq_closed' | 'self_trade' | 'insufficient_collateral';
  /** The RFQ's fill mode (null: no such RFQ). */
  fill_mode: 'best' | 'manual' | null;
  replaced_id: string | null;
  replaced_client_quote_id: string | null;
  replaced_odds_bps: number | null;
  prior_id: string | null;
  prior_rfq_id: string | null;
  prior_odds_bps: number | null;
  prior_max_fill: bigint | null;
  prior_valid_until_ms: number | null;
  prior_signature: string | null;
}

export class RfqQuotesRepository {
  constructor(private readonly db: Db) {}

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
      select (select v from verdict) as verdict, (select fill_mode from r) as fill_mode,
        rp.id as replaced_id, rp.client_quote_id as replaced_client_quote_id, rp.odds_bps as replaced_odds_bps,
        p.id as prior_id, p.rfq_id as prior_rfq_id, p.odds_bps as prior_odds_bps, p.max_fill::text as prior_max_fill,
        p.valid_until_ms::text as prior_valid_until_ms, p.signature as prior_signature
      from (select count(*) from ins) done left join replaced rp on true left join prior p on true`.execute(this.db);
    // int8 parsed here (src/db/int8.ts), as every read of src/db/repositories/rfq.repository.ts.
    const r = rows[0]! as Omit<RecordedQuote, 'prior_max_fill' | 'prior_valid_until_ms'> & {
      prior_max_fill: string | null;
      prior_valid_until_ms: string | null;
    };
    return {
      ...r,
      prior_max_fill: r.prior_max_fill === null ? null : int8ToBigint(r.prior_max_fill),
      prior_valid_until_ms: int8ToNumberOrNull(r.prior_valid_until_ms),
    };
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
