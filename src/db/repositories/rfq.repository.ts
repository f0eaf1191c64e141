// RFQ trading's SQL (rfq-design 3.6, 3.11, 3.13): RFQs, quotes, and what a fill writes (the position, its
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

/**
 * Whether the maker of this wallet was removed by an operator, its market_makers row read FOR SHARE: a
 * removal committing meanwhile is waited for and then seen (true), and a removal starting later waits for
 * the caller's transaction (which it then sees). Null when the wallet was never registered (only
 * in-process callers, such as tests, quote for such a wallet).
 */
const makerRemoved = (wallet: string) =>
  sql<boolean | null>`(select m.removed_at is not null from market_makers m where lower(m.wallet_address) = ${wallet.toLowerCase()} for share)`;

/** Whether the maker's market-maker protection is tripped, its row read FOR SHARE (ordered against a trip). */
const mmpTripped = (wallet: string) =>
  sql<boolean | null>`(select p.tripped_at_ms is not null from mm_protections p where p.maker_address = ${wallet.toLowerCase()} for share)`;

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
   * taker's creates, so it is exact). Returns the new row as stored, or undefined when nothing was inserted
   * (the caller tells the two apart with byNonce / countOpen, off the common path).
   */
  async insert(r: NewRfqRow, maxOpen: number) {
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
    return this.db
      .insertInto('rfqs')
      .columns(values.map(([column]) => column))
      .expression(sql`select ${sql.join(values.map(([, value]) => value))} where ${open} < ${maxOpen}`)
      .onConflict((oc) => oc.constraint('rfqs_taker_nonce_key').doNothing())
      .returning(RFQ_COLUMNS)
      .executeTakeFirst();
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
   * removed (`maker_removed`) are the candidates.
   */
  quotesLocked(rfqId: string) {
    return this.db
      .selectFrom('rfq_quotes')
      .select(QUOTE_COLUMNS)
      .select(
        sql<boolean>`exists (select 1 from market_makers m where lower(m.wallet_address) = maker_address and m.removed_at is not null)`.as(
          'maker_removed',
        ),
      )
      .where('rfq_id', '=', rfqId)
      .orderBy('odds_bps', 'desc')
      .orderBy('received_at_ms')
      .orderBy('id')
      .forUpdate()
      .execute();
  }

  byClientQuoteId(makerAddress: string, clientQuoteId: string) {
    return this.db
      .selectFrom('rfq_quotes')
      .select(QUOTE_COLUMNS)
      .where('maker_address', '=', makerAddress)
      .where('client_quote_id', '=', clientQuoteId)
      .executeTakeFirst();
  }

  /**
   * For a quote, in one statement: the RFQ row held FOR SHARE (its values as locked) with the maker's
   * user (by wallet, case-insensitively) and that user's available balance, read without a lock (the
   * cheap collateral check: the fill checks it again under lock).
   */
  getForQuote(rfqId: string, makerWallet: string) {
    return this.db
      .selectFrom('rfqs')
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('users')
            .leftJoin('ledger_accounts', (j) =>
              j.onRef('ledger_accounts.user_id', '=', 'users.id').on('ledger_accounts.kind', '=', sql.lit('user_available')),
            )
            .select(['users.id as maker_user_id', 'ledger_accounts.balance as maker_available'])
            .where(sql<string>`lower(users.wallet_address)`, '=', makerWallet.toLowerCase())
            .limit(1)
            .as('maker'),
        (j) => j.onTrue(),
      )
      .select(RFQ_COLUMNS.map((c) => `rfqs.${c}` as const))
      .select(['maker.maker_user_id', 'maker.maker_available'])
      .select(makerRemoved(makerWallet).as('maker_removed'))
      .select(mmpTripped(makerWallet).as('maker_mmp_tripped'))
      .where('rfqs.id', '=', rfqId)
      .forShare('rfqs')
      .executeTakeFirst();
  }

  /** The maker's live quote on the RFQ becomes `replaced`; returns it (or nothing). */
  replaceLive(rfqId: string, makerAddress: string) {
    return this.db
      .updateTable('rfq_quotes')
      .set({ status: 'replaced', reason: 'replaced' })
      .where('rfq_id', '=', rfqId)
      .where('maker_address', '=', makerAddress)
      .where('status', '=', sql.lit('live'))
      .returning(['id', 'client_quote_id', 'odds_bps'])
      .executeTakeFirst();
  }

  async insertQuote(q: NewQuoteRow): Promise<void> {
    await this.db
      .insertInto('rfq_quotes')
      .values({
        id: q.id,
        rfq_id: q.rfqId,
        maker_address: q.makerAddress,
        maker_user_id: q.makerUserId,
        client_quote_id: q.clientQuoteId,
        odds_bps: q.oddsBps,
        max_fill: int8(q.maxFill),
        valid_until_ms: int8(q.validUntilMs),
        signature: q.signature,
        received_at_ms: int8(q.receivedAtMs),
      })
      .execute();
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
