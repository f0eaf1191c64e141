// Public RFQ market windows: getCurrentMarket and lookupMarket (docs/trading.md, "Words": windows).
import type { MarketWindowResponse } from '../../../generated/openapi/types.gen.js';
import { getCurrentMarket, lookupMarket, WindowCache, type MarketSettings, type MarketWindowRecord } from '../../domain/markets/markets.js';
import type { HandlersFor } from '../handler.js';
import { preserialized } from '../json-body.js';

/** How long a lookup of a window that is still open (or not started) may be cached. */
export const OPEN_WINDOW_MAX_AGE_SECS = 60;
/** A window whose betting has closed never changes again. */
export const CLOSED_WINDOW_CACHE_CONTROL = 'public, max-age=86400, immutable';

// A cached window (WindowCache) is the same record on every hit: its body is built and serialized once, so a hit
// writes stored bytes (src/http/json-body.ts) and its ETag is hashed once (src/http/respond.ts).
const bodies = new WeakMap<MarketWindowRecord, MarketWindowResponse>();

function toResponse(m: MarketWindowRecord): MarketWindowResponse {
  let body = bodies.get(m);
  if (!body) bodies.set(m, (body = preserialized(buildResponse(m))));
  return body;
}

function buildResponse(m: MarketWindowRecord): MarketWindowResponse {
  return {
    market: {
      market_id: m.marketId,
      asset: m.asset,
      duration_secs: m.durationSecs,
      start_at_ms: m.startAtMs,
      betting_closes_at_ms: m.bettingClosesAtMs,
    },
  };
}

/** Current: cacheable until its betting close, after which current names the next window. */
export function currentCacheControl(m: MarketWindowRecord, nowMs: number): string {
  return `public, max-age=${Math.max(0, Math.floor((m.bettingClosesAtMs - nowMs) / 1000))}`;
}

export function lookupCacheControl(m: MarketWindowRecord, nowMs: number): string {
  return nowMs >= m.bettingClosesAtMs ? CLOSED_WINDOW_CACHE_CONTROL : `public, max-age=${OPEN_WINDOW_MAX_AGE_SECS}`;
}

export function marketsHandlers(deps: { settings: MarketSettings }): HandlersFor<'getCurrentMarket' | 'lookupMarket'> {
  const { settings } = deps;
  // Per app (one database): windows known to exist are answered without SQL and without forking the ORM.
  const cache = new WindowCache();
  return {
    getCurrentMarket: async ({ query }, ctx) => {
      const now = Date.now();
      const m = await getCurrentMarket(() => ctx.db, settings, query.asset, query.duration_secs, now, cache);
      return { status: 200, body: toResponse(m), headers: { 'Cache-Control': currentCacheControl(m, now) } };
    },
    lookupMarket: async ({ query }, ctx) => {
      const now = Date.now();
      const m = await lookupMarket(() => ctx.db, settings, query.asset, query.duration_secs, query.window_start_ms, now, cache);
      return { status: 200, body: toResponse(m), headers: { 'Cache-Control': lookupCacheControl(m, now) } };
    },
  };
}
