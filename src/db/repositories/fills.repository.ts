// What closing an RFQ writes (docs/trading.md, "Fill and rounding rules"): quote outcomes, the RFQ's final state, and on a fill
// the position, its legs, one fill row per maker and the trading counters. In the caller's transaction,
// after the RFQ row (FOR UPDATE) and its live quotes are locked; the arrays are bound as one parameter each.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8 } from '../int8.js';
import type { Direction } from '../vocabulary.js';
import { postingCtes, type PostingRows } from './ledger.repository.js';
import { countFillsCte, parseMmProtection, type MmProtectionDbRow, type MmProtectionRow } from './mm-protections.repository.js';

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

export interface NewPosition {
  id: string;
  rfqId: string;
  takerUserId: string;
  takerAddress: string;
  stake: bigint;
  payout: bigint;
  oddsBps: number;
  createdAtMs: number;
  legs: ReadonlyArray<{ marketId: number; direction: Direction }>;
  fills: readonly NewFillRow[];
  stats: readonly StatsDelta[];
}

/** What one close writes (FillsRepository.closeWrites). */
export interface CloseWrites {
  rfqId: string;
  close: RfqClose;
  /** The quotes whose status changes. */
  outcomes: readonly QuoteOutcomeRow[];
  position: NewPosition | null;
  /** The ledger postings (planned against the accounts of `lockAccounts`). */
  ledger: PostingRows | null;
  /** Ledger account ids the postings touch: locked by the statement itself, in id order. */
  lockAccounts?: readonly string[];
  /** Each maker fill (market-maker protection counts them in the same statement). */
  makerFills?: ReadonlyArray<{ maker: string; liability: bigint }>;
}

export class FillsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Everything a close writes, in ONE statement: the accounts it posts to locked (id order), the RFQ's final
   * state, each quote's outcome, the ledger postings (`ledger`; the balance CHECK of ledger_accounts guards
   * them: a close that read the balances without a lock runs again the safe way when it fails) and, on a
   * fill, the position with its legs, fill rows, trading counters and the makers' protection counters
   * (data-modifying CTEs; the foreign keys are checked at the end of the statement). Returns the protections
   * this close tripped.
   */
  async closeWrites(w: CloseWrites): Promise<MmProtectionRow[]> {
    const { rfqId, close: c, outcomes, position, ledger } = w;
    // The accounts posted to, locked first and in id order (a one-time filter of every other CTE that runs
    // before the statement's end): two closes sharing makers lock them in the same order, as before.
    const accountIds = [...new Set(w.lockAccounts ?? [])].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
    const gate = sql`(select count(*) from acct) >= 0`;
    const parts = [
      sql`acct as (select id from ledger_accounts where id = any(${accountIds}::bigint[]) order by id for update)`,
      sql`closed as (update rfqs set status = ${c.status}, closed_at_ms = ${int8(c.closedAtMs)}::int8, close_reason = ${c.closeReason},
          filled_stake = ${int8(c.filledStake)}::int8, payout = ${c.payout === null ? null : int8(c.payout)}::int8, odds_bps = ${c.oddsBps}::integer,
          position_id = ${c.positionId}::uuid
        where id = ${rfqId}::uuid and status = 'open')`,
      sql`outcomes as (update rfq_quotes q set status = t.status, reason = t.reason, filled_stake = t.filled
        from unnest(${outcomes.map((r) => r.id)}::uuid[], ${outcomes.map((r) => r.status)}::text[], ${outcomes.map((r) => r.reason)}::text[],
          ${outcomes.map((r) => int8(r.filledStake))}::bigint[]) as t(id, status, reason, filled)
        where q.id = t.id)`,
    ];
    if (ledger?.txs.length) parts.push(...postingCtes(ledger));
    if (position) {
      const p = position;
      const f = p.fills;
      const d = [...p.stats].sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0)); // owner order: no deadlocks
      parts.unshift(
        sql`pos as (insert into positions (id, rfq_id, taker_user_id, taker_address, stake, payout, odds_bps, created_at_ms)
          values (${p.id}::uuid, ${p.rfqId}::uuid, ${p.takerUserId}::uuid, ${p.takerAddress}, ${int8(p.stake)}::int8, ${int8(p.payout)}::int8,
            ${p.oddsBps}::integer, ${int8(p.createdAtMs)}::int8))`,
        sql`legs as (insert into position_legs (position_id, leg_index, market_id, direction)
          select ${p.id}::uuid, (n - 1)::smallint, m, d from unnest(${p.legs.map((l) => String(l.marketId))}::bigint[], ${p.legs.map((l) => l.direction)}::text[])
            with ordinality as t(m, d, n))`,
        sql`fills as (insert into position_fills (id, position_id, quote_id, maker_address, maker_user_id, stake, odds_bps, payout, liability, created_at_ms)
          select t.id, ${p.id}::uuid, t.quote_id, t.maker, t.maker_user, t.stake, t.odds, t.payout, t.liability, ${int8(p.createdAtMs)}::int8
          from unnest(${f.map((x) => x.id)}::uuid[], ${f.map((x) => x.quoteId)}::uuid[], ${f.map((x) => x.makerAddress)}::text[],
            ${f.map((x) => x.makerUserId)}::uuid[], ${f.map((x) => int8(x.stake))}::bigint[], ${f.map((x) => x.oddsBps)}::integer[],
            ${f.map((x) => int8(x.payout))}::bigint[], ${f.map((x) => int8(x.liability))}::bigint[])
            as t(id, quote_id, maker, maker_user, stake, odds, payout, liability))`,
        sql`stats as (insert into trading_stats as s (owner, open_count, open_stake, potential_payout)
          select * from unnest(${d.map((x) => x.owner)}::text[], ${d.map((x) => x.openCount)}::integer[], ${d.map((x) => int8(x.openStake))}::bigint[],
            ${d.map((x) => int8(x.potentialPayout))}::bigint[])
          on conflict (owner) do update set open_count = s.open_count + excluded.open_count, open_stake = s.open_stake + excluded.open_stake,
            potential_payout = s.potential_payout + excluded.potential_payout)`,
      );
    }
    const fills = w.makerFills ?? [];
    if (fills.length) parts.push(countFillsCte(fills, c.closedAtMs, gate));
    // The main query reads `acct` first (its select list runs left to right; mmp's gate waits for it too), so
    // the locks come before any other CTE's rows; the CTEs it does not read run after it.
    const tripped = fills.length
      ? sql`(select coalesce(jsonb_agg(to_jsonb(m)), '[]'::jsonb) from mmp m where m.tripped_at_ms is not null)`
      : sql`'[]'::jsonb`;
    const { rows } = await sql<{ locked: boolean; tripped: MmProtectionDbRow[] }>`with ${sql.join(parts, sql`, `)}
      select ${gate} as locked, ${tripped} as tripped`.execute(this.db);
    return rows[0]!.tripped.map(parseMmProtection);
  }
}
