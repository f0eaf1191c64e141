// Market-maker protection (docs/market-makers.md "MMP"): a maker's limits per interval and its counters.
// The fill counts each maker's fill here in its transaction (the row locked by the update); a quote reads
// the row FOR SHARE (rfq.repository getForQuote), so a trip and a quote are ordered one way or the other.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8 } from '../int8.js';

const COLUMNS = [
  'maker_address',
  'interval_ms',
  'max_fills',
  'max_liability',
  'window_start_ms',
  'window_fills',
  'window_liability',
  'tripped_at_ms',
] as const;

export class MmProtectionsRepository {
  constructor(private readonly db: Db) {}

  /** Sets the limits (a new window starts now); a trip stays until a reset. */
  set(maker: string, p: { intervalMs: number; maxFills: number | null; maxLiability: bigint | null; nowMs: number }) {
    const row = {
      maker_address: maker,
      interval_ms: int8(p.intervalMs),
      max_fills: p.maxFills,
      max_liability: p.maxLiability === null ? null : int8(p.maxLiability),
      window_start_ms: int8(p.nowMs),
      window_fills: 0,
      window_liability: '0',
    };
    return this.db
      .insertInto('mm_protections')
      .values(row)
      .onConflict((oc) =>
        oc.column('maker_address').doUpdateSet({
          interval_ms: row.interval_ms,
          max_fills: row.max_fills,
          max_liability: row.max_liability,
          window_start_ms: row.window_start_ms,
          window_fills: 0,
          window_liability: '0',
        }),
      )
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** Clears a trip and starts a new window; undefined when the maker set no protection. */
  reset(maker: string, nowMs: number) {
    return this.db
      .updateTable('mm_protections')
      .set({ tripped_at_ms: null, window_start_ms: int8(nowMs), window_fills: 0, window_liability: '0' })
      .where('maker_address', '=', maker)
      .returning(COLUMNS)
      .executeTakeFirst();
  }

  get(maker: string) {
    return this.db.selectFrom('mm_protections').select(COLUMNS).where('maker_address', '=', maker).executeTakeFirst();
  }

  /**
   * Counts one fill of `liability` for the maker (a window past its interval starts again at now) and trips
   * the protection when a limit is reached; returns the row when this fill tripped it.
   */
  countFill(maker: string, liability: bigint, nowMs: number) {
    const now = sql`${int8(nowMs)}::int8`;
    const expired = sql<boolean>`${now} - window_start_ms >= interval_ms`;
    const fills = sql<number>`(case when ${expired} then 0 else window_fills end) + 1`;
    const owed = sql<string>`(case when ${expired} then 0 else window_liability end) + ${int8(liability)}::int8`;
    return this.db
      .updateTable('mm_protections')
      .set({
        window_start_ms: sql`case when ${expired} then ${now} else window_start_ms end`,
        window_fills: fills,
        window_liability: owed,
        tripped_at_ms: sql`case when ${fills} >= max_fills or ${owed} >= max_liability then ${now} end`,
      })
      .where('maker_address', '=', maker)
      .where('tripped_at_ms', 'is', null)
      .returning(COLUMNS)
      .executeTakeFirst();
  }
}

export const mmProtectionsRepository = (db: Db) => new MmProtectionsRepository(db);
