// Market-maker protection (docs/market-makers.md "MMP"): a maker's limits per interval and its counters.
// The fill counts each maker's fill here in its transaction (the row locked by the update); a quote reads
// the row FOR SHARE (rfq-quotes.repository recordQuote), so a trip and a quote are ordered one way or the other.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigint, int8ToNumber, int8ToNumberOrNull } from '../int8.js';

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

/** An mm_protections row, its int8 columns parsed (src/db/int8.ts): liabilities as bigint, times as numbers. */
export interface MmProtectionRow {
  maker_address: string;
  interval_ms: number;
  max_fills: number | null;
  max_liability: bigint | null;
  window_start_ms: number;
  window_fills: number;
  window_liability: bigint;
  tripped_at_ms: number | null;
}

/** As the database returns it (int8 as text, also inside JSON). */
export interface MmProtectionDbRow {
  maker_address: string;
  interval_ms: string;
  max_fills: number | null;
  max_liability: string | null;
  window_start_ms: string;
  window_fills: number;
  window_liability: string;
  tripped_at_ms: string | null;
}

export function parseMmProtection(r: MmProtectionDbRow): MmProtectionRow {
  return {
    ...r,
    interval_ms: int8ToNumber(r.interval_ms),
    max_liability: r.max_liability === null ? null : int8ToBigint(r.max_liability),
    window_start_ms: int8ToNumber(r.window_start_ms),
    window_liability: int8ToBigint(r.window_liability),
    tripped_at_ms: int8ToNumberOrNull(r.tripped_at_ms),
  };
}

/**
 * The data-modifying CTE `mmp` that counts the fills of one RFQ close, whatever the number of makers (a
 * maker without a protection costs nothing): each (maker, liability) is one fill; a window past its
 * interval starts again at now; a limit reached trips the protection. `gate` runs first (a one-time filter:
 * the close's account locks, so every close takes its locks in the same order). Returns every row it updated
 * (int8 as text, also inside JSON).
 */
export function countFillsCte(
  fills: ReadonlyArray<{ maker: string; liability: bigint }>,
  nowMs: number,
  gate: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  const now = sql`${int8(nowMs)}::int8`;
  const makers = fills.map((f) => f.maker.toLowerCase());
  const liabilities = fills.map((f) => int8(f.liability));
  const expired = sql<boolean>`${now} - p.window_start_ms >= p.interval_ms`;
  const fillsNow = sql<number>`(case when ${expired} then 0 else p.window_fills end) + f.n`;
  const owedNow = sql<string>`(case when ${expired} then 0 else p.window_liability end) + f.owed`;
  return sql`mmp as (
      update mm_protections p set
        window_start_ms = case when ${expired} then ${now} else p.window_start_ms end,
        window_fills = ${fillsNow},
        window_liability = ${owedNow},
        tripped_at_ms = case when ${fillsNow} >= p.max_fills or ${owedNow} >= p.max_liability then ${now} end
      from (
        select maker, count(*)::int as n, sum(owed)::int8 as owed
          from unnest(${makers}::text[], ${liabilities}::int8[]) as t(maker, owed) group by maker
      ) f
      where p.maker_address = f.maker and p.tripped_at_ms is null and ${gate}
      returning p.maker_address, p.interval_ms::text as interval_ms, p.max_fills, p.max_liability::text as max_liability,
        p.window_start_ms::text as window_start_ms, p.window_fills, p.window_liability::text as window_liability, p.tripped_at_ms::text as tripped_at_ms)`;
}

export class MmProtectionsRepository {
  constructor(private readonly db: Db) {}

  /** Sets the limits (a new window starts now); a trip stays until a reset. */
  async set(
    maker: string,
    p: { intervalMs: number; maxFills: number | null; maxLiability: bigint | null; nowMs: number },
  ): Promise<MmProtectionRow> {
    const row = {
      maker_address: maker,
      interval_ms: int8(p.intervalMs),
      max_fills: p.maxFills,
      max_liability: p.maxLiability === null ? null : int8(p.maxLiability),
      window_start_ms: int8(p.nowMs),
      window_fills: 0,
      window_liability: '0',
    };
    const stored = await this.db
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
    return parseMmProtection(stored);
  }

  /** Clears a trip and starts a new window; undefined when the maker set no protection. */
  async reset(maker: string, nowMs: number): Promise<MmProtectionRow | undefined> {
    const row = await this.db
      .updateTable('mm_protections')
      .set({ tripped_at_ms: null, window_start_ms: int8(nowMs), window_fills: 0, window_liability: '0' })
      .where('maker_address', '=', maker)
      .returning(COLUMNS)
      .executeTakeFirst();
    return row && parseMmProtection(row);
  }

  async get(maker: string): Promise<MmProtectionRow | undefined> {
    const row = await this.db.selectFrom('mm_protections').select(COLUMNS).where('maker_address', '=', maker).executeTakeFirst();
    return row && parseMmProtection(row);
  }
}
