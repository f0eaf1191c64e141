// Positions' SQL (docs/trading.md, "Resolution and settlement"): window resolutions, settling a window's positions in
// set-based batches, counters, and the portfolio / PnL / maker reads. In the caller's transaction.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigint, int8ToBigintOrNull, int8ToNumber } from '../int8.js';
import {
  parsePosition,
  parseWindow,
  POSITION_COLUMNS,
  type SettlingFill,
  type SettlingPosition,
  type StatsSettleDelta,
} from './positions.rows.js';
import { anyOf } from '../sql.js';
import type { ResolutionOutcome } from '../vocabulary.js';

export class PositionsRepository {
  constructor(private readonly db: Db) {}

  /** The RFQ window `marketId` with its resolution and its price-quorum check, if any. */
  async window(marketId: number) {
    const r = await this.db
      .selectFrom('markets as m')
      .leftJoin('window_resolutions as r', 'r.market_id', 'm.market_id')
      .leftJoin('window_price_checks as c', 'c.market_id', 'm.market_id')
      .select([
        'm.market_id',
        'm.asset',
        'm.duration_secs',
        'm.start_at_ms',
        'r.outcome',
        'r.open_price_micros',
        'r.close_price_micros',
        'r.source',
        'r.resolved_by',
        'r.resolved_at_ms',
        'c.state as check_state',
        'c.reason as check_reason',
        'c.quorum as check_quorum',
        'c.sources as check_sources',
        'c.max_age_ms as check_max_age_ms',
        'c.checked_at_ms',
        'c.void_at_ms',
      ])
      .where('m.kind', '=', sql.lit('rfq_window'))
      .where('m.market_id', '=', int8(marketId))
      .$narrowType<{ asset: string; duration_secs: number; start_at_ms: string }>()
      .executeTakeFirst();
    return r && parseWindow(r);
  }

  /** First writer wins: returns whether this call recorded the resolution. */
  async insertResolution(r: {
    marketId: number;
    outcome: ResolutionOutcome;
    openPrice: bigint | null;
    closePrice: bigint | null;
    source: string;
    resolvedBy: 'feed' | 'operator';
    resolvedAtMs: number;
  }): Promise<boolean> {
    const rows = await this.db
      .insertInto('window_resolutions')
      .values({
        market_id: int8(r.marketId),
        outcome: r.outcome,
        open_price_micros: r.openPrice === null ? null : int8(r.openPrice),
        close_price_micros: r.closePrice === null ? null : int8(r.closePrice),
        source: r.source,
        resolved_by: r.resolvedBy,
        resolved_at_ms: int8(r.resolvedAtMs),
      })
      .onConflict((oc) => oc.column('market_id').doNothing())
      .returning('market_id')
      .execute();
    return rows.length === 1;
  }

  /**
   * Windows ended at or before `endedBeforeMs` that still have pending legs (the relay's work list), but not a
   * DISPUTED one before its void deadline: the operator's resolution enqueues that one itself.
   */
  async windowsToResolve(endedBeforeMs: number, limit: number, nowMs: number): Promise<number[]> {
    const { rows } = await sql<{ market_id: string }>`
      select m.market_id from markets m
       where m.kind = 'rfq_window' and m.start_at_ms + m.duration_secs * 1000 <= ${int8(endedBeforeMs)}::int8
         and exists (select 1 from position_legs l where l.market_id = m.market_id and l.outcome = 'pending')
         and not exists (select 1 from window_price_checks c left join window_resolutions r on r.market_id = c.market_id
                          where c.market_id = m.market_id and c.state = 'disputed' and c.void_at_ms > ${int8(nowMs)}::int8 and r.market_id is null)
       order by m.start_at_ms limit ${limit}`.execute(this.db);
    return rows.map((r) => Number(r.market_id));
  }

  /**
   * Up to `limit` positions with a pending leg on the market, locked FOR UPDATE in id order; every one of
   * their legs, with the market's outcome applied to the pending legs on this market.
   */
  async lockBatch(marketId: number, limit: number) {
    // The window's pending legs come from the partial index position_legs_pending_market_idx (materialized, so
    // the planner cannot trade it for a walk of positions_pkey and position_legs_pkey in id order: that walk
    // grows with every position ever written and with each settled batch, 41 -> 94 ms a batch at 40k positions
    // in bench:settle, 3-4 ms this way). Then the first `limit` of them by id, locked in id order.
    const { rows } = await sql<{ id: string }>`
      with pending as materialized (
        select l.position_id from position_legs l where l.market_id = ${int8(marketId)}::int8 and l.outcome = 'pending')
      select p.id from positions p
       where p.id in (select position_id from pending order by position_id limit ${limit})
       order by p.id for update of p`.execute(this.db);
    return rows.map((r) => r.id);
  }

  /** Sets the outcome of the pending legs of these positions on the market: won/lost by direction, or voided. */
  async applyOutcome(marketId: number, outcome: ResolutionOutcome, positionIds: readonly string[]): Promise<void> {
    await sql`update position_legs set outcome = case
        when ${outcome}::text = 'VOID' then 'voided'
        when (direction = 'up') = (${outcome}::text = 'YES') then 'won' else 'lost' end
      where market_id = ${int8(marketId)}::int8 and outcome = 'pending' and position_id = ${anyOf(positionIds, 'uuid')}`.execute(this.db);
  }

  /** The positions with every leg's outcome (in position id order, legs in order), amounts as bigint micros. */
  async positionsWithLegs(positionIds: readonly string[]): Promise<SettlingPosition[]> {
    const rows = await this.db
      .selectFrom('positions as p')
      .innerJoin('position_legs as l', 'l.position_id', 'p.id')
      .select(['p.id', 'p.rfq_id', 'p.taker_user_id', 'p.stake', 'p.payout', 'p.status', 'l.outcome'])
      .where('p.id', '=', anyOf(positionIds, 'uuid'))
      .orderBy('p.id')
      .orderBy('l.leg_index')
      .execute();
    const byId = new Map<string, SettlingPosition>();
    for (const r of rows) {
      let p = byId.get(r.id);
      if (!p) {
        p = {
          id: r.id,
          rfqId: r.rfq_id,
          takerUserId: r.taker_user_id,
          stake: int8ToBigint(r.stake),
          payout: int8ToBigint(r.payout),
          status: r.status,
          legs: [],
        };
        byId.set(r.id, p);
      }
      p.legs.push(r.outcome);
    }
    return [...byId.values()];
  }

  /** The makers' fills of these positions (in fill id order), amounts as bigint micros. */
  async fillsOf(positionIds: readonly string[]): Promise<SettlingFill[]> {
    const rows = await this.db
      .selectFrom('position_fills')
      .select(['id', 'position_id', 'maker_address', 'maker_user_id', 'stake', 'payout', 'liability'])
      .where('position_id', '=', anyOf(positionIds, 'uuid'))
      .orderBy('id')
      .execute();
    return rows.map((f) => ({
      id: f.id,
      positionId: f.position_id,
      makerAddress: f.maker_address,
      makerUserId: f.maker_user_id,
      stake: int8ToBigint(f.stake),
      payout: int8ToBigint(f.payout),
      liability: int8ToBigint(f.liability),
    }));
  }

  async settlePositions(rows: ReadonlyArray<{ id: string; status: string; pnl: bigint }>, atMs: number, settleTxId: string): Promise<void> {
    await sql`update positions p set status = t.status, pnl = t.pnl, resolved_at_ms = ${int8(atMs)}::int8, settle_tx_id = ${settleTxId}::uuid
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.status)}::text[], ${rows.map((r) => int8(r.pnl))}::bigint[]) as t(id, status, pnl)
      where p.id = t.id and p.status = 'open'`.execute(this.db);
  }

  async setMakerPnl(rows: ReadonlyArray<{ id: string; pnl: bigint }>): Promise<void> {
    if (!rows.length) return;
    await sql`update position_fills f set maker_pnl = t.pnl
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => int8(r.pnl))}::bigint[]) as t(id, pnl) where f.id = t.id`.execute(
      this.db,
    );
  }

  /**
   * Moves settled positions from the open counters to the settled ones, per owner, locked in owner order. An
   * UPDATE, not an upsert: every owner has its row since its fill, and an insert's row would have to pass
   * the CHECKs with negative deltas.
   */
  async bumpSettledStats(deltas: readonly StatsSettleDelta[]): Promise<void> {
    if (!deltas.length) return;
    const d = [...deltas].sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
    // An UPDATE ... FROM unnest() locks rows in its join's order, not the array's: lock them in owner order
    // first (as a fill's upsert does), so two settlements, or a settlement and a fill, cannot deadlock.
    await sql`select 1 from trading_stats where owner = any(${d.map((x) => x.owner)}::text[]) order by owner for update`.execute(this.db);
    await sql`update trading_stats s set open_count = s.open_count + t.open_count, open_stake = s.open_stake + t.open_stake,
        potential_payout = s.potential_payout + t.potential, settled_count = s.settled_count + t.settled,
        wins = s.wins + t.wins, losses = s.losses + t.losses, voided = s.voided + t.voided, realized_pnl = s.realized_pnl + t.pnl
      from unnest(${d.map((x) => x.owner)}::text[], ${d.map((x) => x.openCount)}::integer[], ${d.map((x) => int8(x.openStake))}::bigint[],
        ${d.map((x) => int8(x.potentialPayout))}::bigint[], ${d.map((x) => x.settled)}::integer[], ${d.map((x) => x.wins)}::integer[],
        ${d.map((x) => x.losses)}::integer[], ${d.map((x) => x.voided)}::integer[], ${d.map((x) => int8(x.pnl))}::bigint[])
        as t(owner, open_count, open_stake, potential, settled, wins, losses, voided, pnl)
      where s.owner = t.owner`.execute(this.db);
  }

  /** An owner's trading counters; amounts as bigint micros. */
  async stats(owner: string) {
    const s = await this.db.selectFrom('trading_stats').selectAll().where('owner', '=', owner).executeTakeFirst();
    return (
      s && {
        ...s,
        open_stake: int8ToBigint(s.open_stake),
        potential_payout: int8ToBigint(s.potential_payout),
        realized_pnl: int8ToBigint(s.realized_pnl),
      }
    );
  }

  userIdByWallet(wallet: string) {
    return this.db
      .selectFrom('users')
      .select(['id', 'wallet_address'])
      .where(sql<string>`lower(wallet_address)`, '=', wallet.toLowerCase())
      .executeTakeFirst();
  }

  /** A taker's positions, newest first, after the keyset position. */
  async page(userId: string, status: string | null, after: { createdAtMs: number; id: string } | null, limit: number) {
    let q = this.db.selectFrom('positions').select(POSITION_COLUMNS).where('taker_user_id', '=', userId);
    if (status) q = q.where('status', '=', status as 'open');
    if (after) q = q.where(sql<boolean>`(created_at_ms, id) < (${int8(after.createdAtMs)}::int8, ${after.id}::uuid)`);
    return (await q.orderBy('created_at_ms', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(parsePosition);
  }

  async position(id: string) {
    const row = await this.db.selectFrom('positions').select(POSITION_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && parsePosition(row);
  }

  /** The legs of these positions with their windows (market id and window start as numbers). */
  async legsOf(positionIds: readonly string[]) {
    const rows = await this.db
      .selectFrom('position_legs as l')
      .innerJoin('markets as m', 'm.market_id', 'l.market_id')
      .select(['l.position_id', 'l.leg_index', 'l.market_id', 'l.direction', 'l.outcome', 'm.asset', 'm.duration_secs', 'm.start_at_ms'])
      .where('l.position_id', '=', anyOf(positionIds, 'uuid'))
      .$narrowType<{ asset: string; duration_secs: number; start_at_ms: string }>()
      .orderBy('l.position_id')
      .orderBy('l.leg_index')
      .execute();
    return rows.map((l) => ({ ...l, market_id: int8ToNumber(l.market_id), start_at_ms: int8ToNumber(l.start_at_ms) }));
  }

  /** Settled positions in (resolved_at_ms, id) order after the keyset, with the running total from the start. */
  async pnlEvents(userId: string, fromMs: number, toMs: number, after: { resolvedAtMs: number; id: string } | null, limit: number) {
    const { rows } = await sql<{ id: string; resolved_at_ms: string; pnl: string; cumulative: string }>`
      select * from (
        select id, resolved_at_ms, pnl, sum(pnl) over (order by resolved_at_ms, id) as cumulative
          from positions where taker_user_id = ${userId}::uuid and resolved_at_ms is not null and resolved_at_ms <= ${int8(toMs)}::int8
      ) x
      where resolved_at_ms >= ${int8(fromMs)}::int8
        and (${after === null}::boolean or (resolved_at_ms, id) > (${int8(after?.resolvedAtMs ?? 0)}::int8, ${after?.id ?? '00000000-0000-0000-0000-000000000000'}::uuid))
      order by resolved_at_ms, id limit ${limit}`.execute(this.db);
    return rows.map((r) => ({
      id: r.id,
      resolved_at_ms: int8ToNumber(r.resolved_at_ms),
      pnl: int8ToBigint(r.pnl),
      cumulative: int8ToBigint(r.cumulative),
    }));
  }

  /** A maker's fills, newest first, with their position's status. */
  async makerFills(makerAddress: string, status: string | null, after: { createdAtMs: number; id: string } | null, limit: number) {
    let q = this.db
      .selectFrom('position_fills as f')
      .innerJoin('positions as p', 'p.id', 'f.position_id')
      .select([
        'f.id',
        'f.position_id',
        'p.rfq_id',
        'f.quote_id',
        'f.stake',
        'f.odds_bps',
        'f.liability',
        'f.maker_pnl',
        'f.created_at_ms',
        'p.status',
      ])
      .where('f.maker_address', '=', makerAddress);
    if (status) q = q.where('p.status', '=', status as 'open');
    if (after) q = q.where(sql<boolean>`(f.created_at_ms, f.id) < (${int8(after.createdAtMs)}::int8, ${after.id}::uuid)`);
    const rows = await q.orderBy('f.created_at_ms', 'desc').orderBy('f.id', 'desc').limit(limit).execute();
    return rows.map((r) => ({
      ...r,
      stake: int8ToBigint(r.stake),
      liability: int8ToBigint(r.liability),
      maker_pnl: int8ToBigintOrNull(r.maker_pnl),
      created_at_ms: int8ToNumber(r.created_at_ms),
    }));
  }
}
