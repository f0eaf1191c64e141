// One RFQ market window with its status and resolution (getMarket), and the operator's override
// (resolveMarketWindow, docs/trading.md, "Resolution and settlement"). The override only records the outcome; settling the
// positions on the window is the resolve-window job's, enqueued right after.
import type { AbstainedReason, MarketWindowStateResponse, PriceSourceName, SourceReading } from '../../../generated/openapi/types.gen.js';
import {
  getWindowState,
  resolveWindowByOperator,
  type SourceReadingRecord,
  type WindowState,
} from '../../domain/markets/window-resolution.js';
import { describeRule } from '../../domain/prices/quorum.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { CLOSED_WINDOW_CACHE_CONTROL } from './markets.js';

export interface WindowSettlement {
  /** Enqueues the settlement of the positions on a resolved window (deduplicated per window). */
  enqueue(marketId: number): Promise<void>;
}

export interface MarketWindowHandlerDeps {
  settings: { bettingCloseBufferMs: number };
  settlement: WindowSettlement;
}

export function marketStateWire(w: WindowState): MarketWindowStateResponse {
  return {
    market: {
      market_id: w.marketId,
      asset: w.asset,
      duration_secs: w.durationSecs,
      start_at_ms: w.startAtMs,
      betting_closes_at_ms: w.bettingClosesAtMs,
      end_at_ms: w.endAtMs,
      status: w.status,
      outcome: w.outcome,
      open_price_micros: w.openPriceMicros === null ? null : w.openPriceMicros.toString(),
      close_price_micros: w.closePriceMicros === null ? null : w.closePriceMicros.toString(),
      price_source: w.priceSource,
      resolved_at_ms: w.resolvedAtMs,
      resolution_rule: w.check
        ? {
            sources: w.check.sources as PriceSourceName[],
            quorum: w.check.quorum,
            max_age_ms: w.check.maxAgeMs,
            rule: describeRule(w.check),
          }
        : null,
      dispute:
        w.check?.state === 'disputed'
          ? { reason: w.check.reason!, disputed_at_ms: w.check.checkedAtMs, void_at_ms: w.check.voidAtMs! }
          : null,
      sources: w.sources.map(readingWire),
    },
  };
}

const observationWire = (o: SourceReadingRecord['open']) =>
  o && {
    price_micros: o.priceMicros.toString(),
    observed_at_ms: o.observedAtMs,
    ref: o.ref,
    confidence_micros: o.confidenceMicros === null ? null : o.confidenceMicros.toString(),
  };

const readingWire = (r: SourceReadingRecord): SourceReading => ({
  source: r.source as PriceSourceName,
  vote: r.verdict,
  open: observationWire(r.open),
  close: observationWire(r.close),
  // The code only: the stored failure text (`error`) stays with the operator's logs and prices:verify.
  abstained_reason: r.reason as AbstainedReason,
});

/** A resolution is final, so a resolved or voided window may be cached for good; before that its status moves. */
export const windowCacheControl = (w: WindowState) =>
  w.status === 'RESOLVED' || w.status === 'VOIDED' ? CLOSED_WINDOW_CACHE_CONTROL : NO_STORE['Cache-Control'];

// Integer path parameters reach handlers as their canonical decimal text (input-guard.ts), whatever the
// generated type says; a value past 2^53 is no window (getWindowState answers 404).
const marketIdOf = (raw: number | string) => Number(raw);

export function marketWindowsHandlers(deps: MarketWindowHandlerDeps): HandlersFor<'getMarket' | 'resolveMarketWindow'> {
  const bufferMs = deps.settings.bettingCloseBufferMs;
  return {
    getMarket: async ({ params }, { db }) => {
      const w = await getWindowState(db, marketIdOf(params.market_id), bufferMs);
      return { status: 200, body: marketStateWire(w), headers: { 'Cache-Control': windowCacheControl(w) } };
    },
    resolveMarketWindow: async ({ params, body }, { db, log, audit }) => {
      const w = await audit.within(db, (tx) => resolveWindowByOperator(tx, marketIdOf(params.market_id), body.outcome, bufferMs));
      log.info({ market_id: w.marketId, outcome: body.outcome }, 'market window resolved by the operator');
      // The outcome is committed; a lost enqueue leaves the positions to the resolution relay.
      await deps.settlement.enqueue(w.marketId).catch((err: unknown) => {
        log.warn({ err, market_id: w.marketId }, 'could not enqueue the settlement of the window; the resolution relay will settle it');
      });
      return { status: 200, body: marketStateWire(w), headers: NO_STORE };
    },
  };
}
