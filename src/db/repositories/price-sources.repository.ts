// The price sources' shared state (docs/prices.md): each source's probe state and circuit
// (price_source_health), the observations already fetched per boundary (price_observations), and the
// resolution backlog the gauges report. In the caller's transaction.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigint, int8ToBigintOrNull, int8ToNumber, int8ToNumberOrNull } from '../int8.js';

export type SourceStateName = 'ok' | 'failing' | 'blocked' | 'banned';
export type CircuitReasonName = 'rate_limited' | 'banned' | 'unavailable';

export interface ProbeRow {
  source: string;
  state: SourceStateName;
  /** A reason code (src/adapters/prices/reasons.ts) when not ok. */
  reason: string | null;
  /** What the probe saw, URLs removed. */
  detail: string | null;
  atMs: number;
  listed: readonly string[];
  unlisted: readonly string[];
}

export interface ObservationRow {
  priceMicros: bigint;
  observedAtMs: number;
  ref: string | null;
  confidenceMicros: bigint | null;
}

export class PriceSourcesRepository {
  constructor(private readonly db: Db) {}

  /** Records each source's probe: its state (replacing a `blocked` one), when, and what it lists; ok_at_ms moves on ok only. */
  async recordProbes(rows: readonly ProbeRow[]): Promise<void> {
    if (!rows.length) return;
    await sql`insert into price_source_health as h (source, state, state_reason, state_detail, probed_at_ms, ok_at_ms, listed, unlisted)
      select t.source, t.state, t.reason, t.detail, t.at_ms, case when t.state = 'ok' then t.at_ms end, t.listed, t.unlisted
        from unnest(${rows.map((r) => r.source)}::text[], ${rows.map((r) => r.state)}::text[], ${rows.map((r) => r.reason)}::text[],
                    ${rows.map((r) => r.detail)}::text[], ${rows.map((r) => int8(r.atMs))}::int8[], ${rows.map((r) => r.listed.join(','))}::text[],
                    ${rows.map((r) => r.unlisted.join(','))}::text[]) as t(source, state, reason, detail, at_ms, listed, unlisted)
      on conflict (source) do update set
        state = excluded.state, state_reason = excluded.state_reason, state_detail = excluded.state_detail,
        probed_at_ms = excluded.probed_at_ms, ok_at_ms = coalesce(excluded.ok_at_ms, h.ok_at_ms),
        listed = excluded.listed, unlisted = excluded.unlisted`.execute(this.db);
  }

  /** The source's circuit as recorded (open or not: the caller compares with its clock). */
  async circuit(source: string): Promise<{ untilMs: number; reason: CircuitReasonName } | null> {
    const r = await this.db
      .selectFrom('price_source_health')
      .select(['circuit_until_ms', 'circuit_reason'])
      .where('source', '=', source)
      .executeTakeFirst();
    return r?.circuit_until_ms && r.circuit_reason ? { untilMs: int8ToNumber(r.circuit_until_ms), reason: r.circuit_reason } : null;
  }

  /** Opens the circuit until `untilMs`, or extends it: an open circuit is never shortened. */
  async openCircuit(source: string, untilMs: number, reason: CircuitReasonName): Promise<void> {
    await sql`insert into price_source_health as h (source, circuit_until_ms, circuit_reason) values (${source}, ${int8(untilMs)}::int8, ${reason})
      on conflict (source) do update set
        circuit_reason = case when h.circuit_until_ms is null or h.circuit_until_ms < excluded.circuit_until_ms then excluded.circuit_reason else h.circuit_reason end,
        circuit_until_ms = greatest(h.circuit_until_ms, excluded.circuit_until_ms)`.execute(this.db);
  }

  /** The observation fetched for (source, asset, at), if any. */
  async observation(source: string, asset: string, atMs: number): Promise<ObservationRow | null> {
    const r = await this.db
      .selectFrom('price_observations')
      .select(['price_micros', 'observed_at_ms', 'ref', 'confidence_micros'])
      .where('source', '=', source)
      .where('asset', '=', asset)
      .where('at_ms', '=', int8(atMs))
      .executeTakeFirst();
    return r
      ? {
          priceMicros: int8ToBigint(r.price_micros),
          observedAtMs: int8ToNumber(r.observed_at_ms),
          ref: r.ref,
          confidenceMicros: int8ToBigintOrNull(r.confidence_micros),
        }
      : null;
  }

  /** Keeps an observation; the first one kept for (source, asset, at) stays. */
  async putObservation(source: string, asset: string, atMs: number, o: ObservationRow, fetchedAtMs: number): Promise<void> {
    await this.db
      .insertInto('price_observations')
      .values({
        source,
        asset,
        at_ms: int8(atMs),
        price_micros: int8(o.priceMicros),
        observed_at_ms: int8(o.observedAtMs),
        ref: o.ref,
        confidence_micros: o.confidenceMicros === null ? null : int8(o.confidenceMicros),
        fetched_at_ms: int8(fetchedAtMs),
      })
      .onConflict((oc) => oc.columns(['source', 'asset', 'at_ms']).doNothing())
      .execute();
  }

  /** Deletes observations fetched before `beforeMs` (at most `limit`); how many. */
  async pruneObservations(beforeMs: number, limit: number): Promise<number> {
    const { rows } = await sql<{ n: string }>`with gone as (
        delete from price_observations where ctid in (select ctid from price_observations where fetched_at_ms < ${int8(beforeMs)}::int8 limit ${limit})
        returning 1)
      select count(*)::text as n from gone`.execute(this.db);
    return int8ToNumber(rows[0]?.n ?? '0');
  }

  /**
   * Windows with open positions that ended before `overdueBeforeMs` and have no outcome and no dispute (late),
   * the oldest one's end, and DISPUTED windows nobody resolved yet.
   */
  async resolutionBacklog(overdueBeforeMs: number): Promise<{ overdue: number; oldestEndMs: number | null; disputed: number }> {
    const { rows } = await sql<{ overdue: string; oldest_end_ms: string | null; disputed: string }>`
      with pending as (select distinct l.market_id from position_legs l where l.outcome = 'pending'),
      late as (
        select m.start_at_ms + m.duration_secs * 1000 as end_ms from markets m join pending p on p.market_id = m.market_id
         where m.kind = 'rfq_window' and m.start_at_ms + m.duration_secs * 1000 < ${int8(overdueBeforeMs)}::int8
           and not exists (select 1 from window_resolutions r where r.market_id = m.market_id)
           and not exists (select 1 from window_price_checks c where c.market_id = m.market_id and c.state = 'disputed'))
      select (select count(*) from late)::text as overdue, (select min(end_ms) from late)::text as oldest_end_ms,
             (select count(*) from window_price_checks c where c.state = 'disputed'
                 and not exists (select 1 from window_resolutions r where r.market_id = c.market_id))::text as disputed`.execute(this.db);
    const r = rows[0]!;
    return { overdue: int8ToNumber(r.overdue), oldestEndMs: int8ToNumberOrNull(r.oldest_end_ms), disputed: int8ToNumber(r.disputed) };
  }
}
