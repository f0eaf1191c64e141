// What closing an RFQ writes (rfq-design 3.6, 3.7): quote outcomes, the RFQ's final state, and on a fill
// the position, its legs, one fill row per maker and the trading counters. In the caller's transaction,
// after the RFQ row (FOR UPDATE) and its live quotes are locked; the arrays are bound as one parameter each.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8 } from '../int8.js';

export interface RfqClose {
  status: 'filled' | 'expired' | 'cancelled';
  closedAtMs: number;
  closeReason: string | null;
  filledStake: bigint;
  payout: bigint | null;
  oddsBps: number | null;
  positionId: string | null;
}

export interface QuoteOutcomeRow {
  id: string;
  status: 'filled' | 'not_filled' | 'rejected';
  reason: string | null;
  filledStake: bigint;
}

export interface StatsDelta {
  owner: string;
  openCount: number;
  openStake: bigint;
  potentialPayout: bigint;
}

export interface NewFillRow {
  id: string;
  quoteId: string;
  makerAddress: string;
  makerUserId: string;
  stake: bigint;
  oddsBps: number;
  payout: bigint;
  liability: bigint;
}

export class FillsRepository {
  constructor(private readonly db: Db) {}

  /** Sets each quote's final status in one statement. */
  async setQuoteOutcomes(rows: readonly QuoteOutcomeRow[]): Promise<void> {
    if (!rows.length) return;
    await sql`update rfq_quotes q set status = t.status, reason = t.reason, filled_stake = t.filled
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.status)}::text[], ${rows.map((r) => r.reason)}::text[],
        ${rows.map((r) => int8(r.filledStake))}::bigint[]) as t(id, status, reason, filled)
      where q.id = t.id`.execute(this.db);
  }

  async close(id: string, c: RfqClose): Promise<void> {
    await this.db
      .updateTable('rfqs')
      .set({
        status: c.status,
        closed_at_ms: int8(c.closedAtMs),
        close_reason: c.closeReason as 'cancelled' | null,
        filled_stake: int8(c.filledStake),
        payout: c.payout === null ? null : int8(c.payout),
        odds_bps: c.oddsBps,
        position_id: c.positionId,
      })
      .where('id', '=', id)
      .where('status', '=', sql.lit('open'))
      .execute();
  }

  async insertPosition(p: {
    id: string;
    rfqId: string;
    takerUserId: string;
    takerAddress: string;
    stake: bigint;
    payout: bigint;
    oddsBps: number;
    createdAtMs: number;
  }): Promise<void> {
    await this.db
      .insertInto('positions')
      .values({
        id: p.id,
        rfq_id: p.rfqId,
        taker_user_id: p.takerUserId,
        taker_address: p.takerAddress,
        stake: int8(p.stake),
        payout: int8(p.payout),
        odds_bps: p.oddsBps,
        created_at_ms: int8(p.createdAtMs),
      })
      .execute();
  }

  async insertLegs(positionId: string, legs: ReadonlyArray<{ marketId: number; direction: 'up' | 'down' }>): Promise<void> {
    await sql`insert into position_legs (position_id, leg_index, market_id, direction)
      select ${positionId}::uuid, (n - 1)::smallint, m, d from unnest(${legs.map((l) => String(l.marketId))}::bigint[], ${legs.map((l) => l.direction)}::text[])
        with ordinality as t(m, d, n)`.execute(this.db);
  }

  async insertFills(positionId: string, createdAtMs: number, fills: readonly NewFillRow[]): Promise<void> {
    await sql`insert into position_fills (id, position_id, quote_id, maker_address, maker_user_id, stake, odds_bps, payout, liability, created_at_ms)
      select t.id, ${positionId}::uuid, t.quote_id, t.maker, t.maker_user, t.stake, t.odds, t.payout, t.liability, ${int8(createdAtMs)}::int8
      from unnest(${fills.map((f) => f.id)}::uuid[], ${fills.map((f) => f.quoteId)}::uuid[], ${fills.map((f) => f.makerAddress)}::text[],
        ${fills.map((f) => f.makerUserId)}::uuid[], ${fills.map((f) => int8(f.stake))}::bigint[], ${fills.map((f) => f.oddsBps)}::integer[],
        ${fills.map((f) => int8(f.payout))}::bigint[], ${fills.map((f) => int8(f.liability))}::bigint[])
        as t(id, quote_id, maker, maker_user, stake, odds, payout, liability)`.execute(this.db);
  }

  /** Adds the deltas to each owner's counters (creating the rows), in owner order (no deadlocks). */
  async bumpOpenStats(deltas: readonly StatsDelta[]): Promise<void> {
    if (!deltas.length) return;
    const d = [...deltas].sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
    await sql`insert into trading_stats as s (owner, open_count, open_stake, potential_payout)
      select * from unnest(${d.map((x) => x.owner)}::text[], ${d.map((x) => x.openCount)}::integer[], ${d.map((x) => int8(x.openStake))}::bigint[],
        ${d.map((x) => int8(x.potentialPayout))}::bigint[])
      on conflict (owner) do update set open_count = s.open_count + excluded.open_count, open_stake = s.open_stake + excluded.open_stake,
        potential_payout = s.potential_payout + excluded.potential_payout`.execute(this.db);
  }
}

export const fillsRepository = (db: Db) => new FillsRepository(db);
