// RFQ window status and resolution (docs/prices.md): a window is OPEN until its betting close, then CLOSED
// until the feed decides: RESOLVED (YES/NO) when a quorum of price sources agree, DISPUTED when they do not
// (or too few answer in time) until the operator resolves it or it voids at its deadline, VOIDED. The
// resolution is immutable: the first writer (the feed job or the operator) wins. Up (YES) wins only if
// close > open. Prices are read outside any transaction; settling the positions is settleWindow's job.
import type { Em } from '../../db/orm.js';
import type { PositionsRepository } from '../../db/repositories/positions.repository.js';
import type { MarketOutcome, ResolutionOutcome } from '../../db/vocabulary.js';
import { Conflict, NotFound } from '../errors.js';
import type { Verdict } from '../prices/quorum.js';
import { bettingClosesAt } from './windows.js';
import { repos } from '../../db/repos.js';

export type WindowStatus = 'OPEN' | 'CLOSED' | 'DISPUTED' | 'RESOLVED' | 'VOIDED';

export interface ObservationRecord {
  priceMicros: bigint;
  observedAtMs: number;
  ref: string | null;
  /** Pyth's confidence interval, micros; null for the other sources. */
  confidenceMicros: bigint | null;
}

export interface SourceReadingRecord {
  source: string;
  verdict: Verdict;
  open: ObservationRecord | null;
  close: ObservationRecord | null;
  /** Why the source did not vote (a reason code, src/adapters/prices/reasons.ts); null when it voted. */
  reason: string | null;
  /** The maximum age its readings were judged by. */
  maxAgeMs: number;
  /** Internal detail of a failure (URLs removed): for operators and logs, never on the public wire. */
  error: string | null;
}

export interface PriceCheckRecord {
  state: 'agreed' | 'disputed';
  reason: 'disagreement' | 'too_few_readings' | null;
  quorum: number;
  sources: string[];
  /** Each source's maximum age (a check recorded before per-source ages: its one PRICE_MAX_AGE_MS for every source). */
  maxAgeMs: Record<string, number>;
  checkedAtMs: number;
  voidAtMs: number | null;
}

export interface WindowState {
  marketId: number;
  asset: string;
  durationSecs: number;
  startAtMs: number;
  bettingClosesAtMs: number;
  endAtMs: number;
  status: WindowStatus;
  /** YES / NO once resolved; null while open, closed, disputed or voided. */
  outcome: MarketOutcome | null;
  openPriceMicros: bigint | null;
  closePriceMicros: bigint | null;
  priceSource: string | null;
  resolvedBy: 'feed' | 'operator' | null;
  resolvedAtMs: number | null;
  /** The feed's decision with the rule it applied (null until the feed decided, or when the operator came first). */
  check: PriceCheckRecord | null;
  /** Every listed source's readings that took part in the check. */
  sources: SourceReadingRecord[];
}

const notFound = (marketId: number) =>
  new NotFound('MARKET_NOT_FOUND', `no RFQ market window ${marketId}; take market_id from GET /v1/markets/current or /v1/markets/lookup`);

type WindowRow = NonNullable<Awaited<ReturnType<PositionsRepository['window']>>>;

export function checkOf(r: WindowRow): PriceCheckRecord | null {
  if (!r.check_state) return null;
  const sources = r.check_sources!.split(',');
  return {
    state: r.check_state,
    reason: r.check_reason,
    quorum: r.check_quorum!,
    sources,
    maxAgeMs: Object.fromEntries(sources.map((s) => [s, r.check_max_age_ms!])),
    checkedAtMs: r.checked_at_ms!,
    voidAtMs: r.void_at_ms,
  };
}

function side(price: bigint | null, at: number | null, ref: string | null, confidence: bigint | null): ObservationRecord | null {
  return price === null || at === null ? null : { priceMicros: price, observedAtMs: at, ref, confidenceMicros: confidence };
}

export async function getWindowState(em: Em, marketId: number, bufferMs: number, nowMs = Date.now()): Promise<WindowState> {
  if (!Number.isSafeInteger(marketId) || marketId < 1) throw notFound(marketId);
  const r = await repos(em).positions.window(marketId);
  if (!r) throw notFound(marketId);
  const startAtMs = r.start_at_ms;
  const bettingClosesAtMs = bettingClosesAt(startAtMs, r.duration_secs, bufferMs);
  const check = checkOf(r);
  const status: WindowStatus = r.outcome
    ? r.outcome === 'VOID'
      ? 'VOIDED'
      : 'RESOLVED'
    : check?.state === 'disputed'
      ? 'DISPUTED'
      : nowMs < bettingClosesAtMs
        ? 'OPEN'
        : 'CLOSED';
  const readings = check ? await repos(em).prices.readings(marketId) : [];
  for (const x of readings) if (check && x.max_age_ms !== null) check.maxAgeMs[x.source] = x.max_age_ms;
  return {
    marketId,
    asset: r.asset,
    durationSecs: r.duration_secs,
    startAtMs,
    bettingClosesAtMs,
    endAtMs: startAtMs + r.duration_secs * 1000,
    status,
    outcome: r.outcome === 'YES' || r.outcome === 'NO' ? r.outcome : null,
    openPriceMicros: r.open_price_micros,
    closePriceMicros: r.close_price_micros,
    priceSource: r.source,
    resolvedBy: r.resolved_by,
    resolvedAtMs: r.resolved_at_ms,
    check,
    sources: check
      ? check.sources.flatMap((source) => {
          const x = readings.find((y) => y.source === source);
          if (!x) return [];
          return [
            {
              source,
              verdict: x.verdict,
              open: side(x.open_price_micros, x.open_observed_at_ms, x.open_ref, x.open_confidence_micros),
              close: side(x.close_price_micros, x.close_observed_at_ms, x.close_ref, x.close_confidence_micros),
              reason: x.abstained_reason ?? legacyReason(x.verdict, x.open_ref !== null && x.open_ref === x.close_ref),
              maxAgeMs: x.max_age_ms ?? check.maxAgeMs[source] ?? 0,
              error: x.error,
            },
          ];
        })
      : [],
  };
}

/** The reason of a reading recorded before reasons were (migration 20261128030000): the plainest one its verdict allows. */
const legacyReason = (verdict: Verdict, oneObservation: boolean): string | null =>
  verdict === 'missing' ? 'source_error' : verdict === 'stale' ? (oneObservation ? 'same_observation' : 'observation_too_old') : null;

/**
 * The operator's resolution: 409 BETTING_OPEN before the betting close, 409 MARKET_ALREADY_RESOLVED after a
 * resolution. A DISPUTED window is what it is for; a CLOSED one may be forced too.
 */
export async function resolveWindowByOperator(
  em: Em,
  marketId: number,
  outcome: ResolutionOutcome,
  bufferMs: number,
  nowMs = Date.now(),
): Promise<WindowState> {
  const state = await getWindowState(em, marketId, bufferMs, nowMs);
  if (state.status === 'OPEN') {
    throw new Conflict('BETTING_OPEN', `betting on market ${marketId} is open until ${state.bettingClosesAtMs}; resolve it after that`, {
      betting_closes_at_ms: state.bettingClosesAtMs,
    });
  }
  const already = () =>
    new Conflict(
      'MARKET_ALREADY_RESOLVED',
      `market ${marketId} is already ${state.status === 'VOIDED' ? 'voided' : `resolved ${state.outcome}`}; a resolution is final`,
    );
  if (state.status !== 'CLOSED' && state.status !== 'DISPUTED') throw already();
  // Decided in SQL (PositionsRepository.insertResolution: ON CONFLICT DO NOTHING on window_resolutions' key): the
  // first resolution recorded stands, the operator's or the feed's (src/domain/markets/window-feed.ts).
  const recorded = await repos(em).positions.insertResolution({
    marketId,
    outcome,
    openPrice: null,
    closePrice: null,
    source: 'operator',
    resolvedBy: 'operator',
    resolvedAtMs: nowMs,
  });
  if (!recorded) throw already();
  return getWindowState(em, marketId, bufferMs, nowMs);
}

/** Windows ended at least `delayMs` ago that still have pending legs, but not DISPUTED ones before their deadline (the relay enqueues each). */
export function windowsAwaitingResolution(em: Em, nowMs: number, delayMs: number, limit = 500): Promise<number[]> {
  // Decided in SQL (PositionsRepository.windowsToResolve): which windows are due (ended, with a pending leg, not
  // DISPUTED before its void deadline), oldest first.
  return repos(em).positions.windowsToResolve(nowMs - delayMs, limit, nowMs);
}
