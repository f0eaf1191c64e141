// Price quorum SQL (docs/prices.md): the one feed decision per window with every reading that took part,
// and each source's health counters. In the caller's transaction.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigintOrNull, int8ToNumber, int8ToNumberOrNull } from '../int8.js';
import type { MarketOutcome } from '../vocabulary.js';

export interface ReadingRow {
  source: string;
  verdict: MarketOutcome | 'stale' | 'missing';
  openPrice: bigint | null;
  openObservedAtMs: number | null;
  openRef: string | null;
  closePrice: bigint | null;
  closeObservedAtMs: number | null;
  closeRef: string | null;
  /** Internal detail of a failure, URLs removed (never public). */
  error: string | null;
  /** The public code of why the source did not vote; null when it voted. */
  reason: string | null;
  /** The maximum age the source was judged by. */
  maxAgeMs: number;
  openConfidence: bigint | null;
  closeConfidence: bigint | null;
}

export interface CheckRow {
  marketId: number;
  state: 'agreed' | 'disputed';
  reason: 'disagreement' | 'too_few_readings' | null;
  quorum: number;
  sources: readonly string[];
  maxAgeMs: number;
  checkedAtMs: number;
  voidAtMs: number | null;
}

export interface HealthSample {
  source: string;
  requests: number;
  failures: number;
  latencyMs: number;
  atMs: number;
  /** The last failure's message (URLs removed), when there was one. */
  error: string | null;
  /** Set when a request was refused with 451/403/401: the source's state becomes `blocked` (its detail) until a probe clears it. */
  blocked?: string;
}

const n8 = (v: bigint | number | null) => (v === null ? null : int8(v));

export class PricesRepository {
  constructor(private readonly db: Db) {}

  /** First writer wins: records the check and its readings; false (nothing written) when the window has one. */
  async insertCheck(c: CheckRow, readings: readonly ReadingRow[]): Promise<boolean> {
    const rows = await this.db
      .insertInto('window_price_checks')
      .values({
        market_id: int8(c.marketId),
        state: c.state,
        reason: c.reason,
        quorum: c.quorum,
        sources: c.sources.join(','),
        max_age_ms: int8(c.maxAgeMs),
        checked_at_ms: int8(c.checkedAtMs),
        void_at_ms: n8(c.voidAtMs),
      })
      .onConflict((oc) => oc.column('market_id').doNothing())
      .returning('market_id')
      .execute();
    if (rows.length !== 1) return false;
    if (readings.length) {
      await this.db
        .insertInto('window_price_readings')
        .values(
          readings.map((r) => ({
            market_id: int8(c.marketId),
            source: r.source,
            verdict: r.verdict,
            open_price_micros: n8(r.openPrice),
            open_observed_at_ms: n8(r.openObservedAtMs),
            open_ref: r.openRef,
            close_price_micros: n8(r.closePrice),
            close_observed_at_ms: n8(r.closeObservedAtMs),
            close_ref: r.closeRef,
            error: r.error,
            abstained_reason: r.reason,
            max_age_ms: int8(r.maxAgeMs),
            open_confidence_micros: n8(r.openConfidence),
            close_confidence_micros: n8(r.closeConfidence),
          })),
        )
        .execute();
    }
    return true;
  }

  /** A window's readings; prices as bigint micros, times as epoch ms. */
  async readings(marketId: number) {
    const rows = await this.db
      .selectFrom('window_price_readings')
      .select([
        'source',
        'verdict',
        'open_price_micros',
        'open_observed_at_ms',
        'open_ref',
        'close_price_micros',
        'close_observed_at_ms',
        'close_ref',
        'error',
        'abstained_reason',
        'max_age_ms',
        'open_confidence_micros',
        'close_confidence_micros',
      ])
      .where('market_id', '=', int8(marketId))
      .execute();
    return rows.map((r) => ({
      ...r,
      open_price_micros: int8ToBigintOrNull(r.open_price_micros),
      open_observed_at_ms: int8ToNumberOrNull(r.open_observed_at_ms),
      close_price_micros: int8ToBigintOrNull(r.close_price_micros),
      close_observed_at_ms: int8ToNumberOrNull(r.close_observed_at_ms),
      max_age_ms: int8ToNumberOrNull(r.max_age_ms),
      open_confidence_micros: int8ToBigintOrNull(r.open_confidence_micros),
      close_confidence_micros: int8ToBigintOrNull(r.close_confidence_micros),
    }));
  }

  /** Adds a resolution attempt's requests to each source's counters (one statement for every source). */
  async addHealth(samples: readonly HealthSample[]): Promise<void> {
    if (!samples.length) return;
    await sql`insert into price_source_health as h (source, last_success_at_ms, last_failure_at_ms, last_error, requests, failures, latency_ms_total)
      select t.source, case when t.requests > t.failures then t.at_ms end, case when t.failures > 0 then t.at_ms end,
             t.error, t.requests, t.failures, t.latency_ms
        from unnest(${samples.map((s) => s.source)}::text[], ${samples.map((s) => int8(s.atMs))}::int8[], ${samples.map((s) => s.error)}::text[],
                    ${samples.map((s) => int8(s.requests))}::int8[], ${samples.map((s) => int8(s.failures))}::int8[],
                    ${samples.map((s) => int8(Math.round(s.latencyMs)))}::int8[]) as t(source, at_ms, error, requests, failures, latency_ms)
      on conflict (source) do update set
        last_success_at_ms = greatest(h.last_success_at_ms, excluded.last_success_at_ms),
        last_failure_at_ms = greatest(h.last_failure_at_ms, excluded.last_failure_at_ms),
        last_error = coalesce(excluded.last_error, h.last_error),
        requests = h.requests + excluded.requests,
        failures = h.failures + excluded.failures,
        latency_ms_total = h.latency_ms_total + excluded.latency_ms_total`.execute(this.db);
    const blocked = samples.filter((s) => s.blocked !== undefined);
    if (blocked.length) {
      await sql`update price_source_health h set state = 'blocked', state_reason = 'blocked', state_detail = t.detail
          from unnest(${blocked.map((s) => s.source)}::text[], ${blocked.map((s) => s.blocked!.slice(0, 300))}::text[]) as t(source, detail)
         where h.source = t.source`.execute(this.db);
    }
  }

  /** Every source's counters, probe state and circuit. */
  async health() {
    const rows = await this.db
      .selectFrom('price_source_health')
      .select([
        'source',
        'last_success_at_ms',
        'last_failure_at_ms',
        'requests',
        'failures',
        'latency_ms_total',
        'state',
        'state_reason',
        'state_detail',
        'probed_at_ms',
        'ok_at_ms',
        'listed',
        'unlisted',
        'circuit_until_ms',
        'circuit_reason',
      ])
      .orderBy('source')
      .execute();
    return rows.map((r) => ({
      ...r,
      last_success_at_ms: int8ToNumberOrNull(r.last_success_at_ms),
      last_failure_at_ms: int8ToNumberOrNull(r.last_failure_at_ms),
      requests: int8ToNumber(r.requests),
      failures: int8ToNumber(r.failures),
      latency_ms_total: int8ToNumber(r.latency_ms_total),
      probed_at_ms: int8ToNumberOrNull(r.probed_at_ms),
      ok_at_ms: int8ToNumberOrNull(r.ok_at_ms),
      circuit_until_ms: int8ToNumberOrNull(r.circuit_until_ms),
    }));
  }
}
