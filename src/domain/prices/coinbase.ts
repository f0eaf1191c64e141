// PRICE_FEED source `coinbase`: Coinbase Exchange candles, GET <COINBASE_API_URL>/products/<product>/candles
// with granularity (seconds, one of 60, 300, 900, 3600, 21600, 86400), start and end (ISO 8601), as Coinbase
// documents it (docs.cdp.coinbase.com, Exchange REST API, "Get product candles"). Each candle is an array
// [time (bucket start, Unix s), low, high, open, close, volume] of JSON numbers, newest first, at most 300,
// and buckets without trades are absent. Fixtures: src/domain/prices/fixtures/coinbase-candles.json.
// The price at t is the close of the last 60 s candle that ended at or before t, observed at the bucket's
// last millisecond; the bucket start is its identifier. The numbers are read as their JSON text, not floats.
import { decimalToMicros } from './decimal.js';
import type { PriceFeed, PriceObservation } from './feed.js';
import { getJson, SourceError, type HttpSourceOptions } from './http-json.js';

export interface CoinbaseOptions extends HttpSourceOptions {
  apiUrl: string;
  /** Asset -> Coinbase product (BTC -> BTC-USD). */
  products: Readonly<Record<string, string>>;
  /** How far back to look for the last candle (default 5 min; at most 290 candles). */
  lookbackMs?: number;
  now?: () => number;
}

export const COINBASE_GRANULARITY_S = 60;
const isInt = (v: unknown): v is string => typeof v === 'string' && /^\d{1,12}$/.test(v);

/** The last candle of `rows` that ended at or before `tsMs` (and before `nowMs`), or null; throws on a malformed answer. */
export function pickCandle(rows: unknown, tsMs: number, nowMs: number): PriceObservation | null {
  if (!Array.isArray(rows)) throw new SourceError('candles answer is not an array');
  let best: PriceObservation | null = null;
  let bestTime = -1;
  for (const c of rows) {
    if (!Array.isArray(c) || c.length < 5 || !isInt(c[0]) || typeof c[4] !== 'string') {
      throw new SourceError(`malformed candle: ${JSON.stringify(c).slice(0, 120)}`);
    }
    const time = Number(c[0]);
    const price = decimalToMicros(c[4]);
    if (price === null || price <= 0n) throw new SourceError(`malformed candle: ${JSON.stringify(c).slice(0, 120)}`);
    const lastMs = (time + COINBASE_GRANULARITY_S) * 1000 - 1;
    if (lastMs > tsMs || lastMs >= nowMs || time <= bestTime) continue;
    bestTime = time;
    best = { priceMicros: price, observedAtMs: lastMs, sourceRef: `candle:${time}` };
  }
  return best;
}

export function createCoinbaseFeed(opts: CoinbaseOptions): PriceFeed {
  const now = opts.now ?? Date.now;
  const lookback = Math.min(opts.lookbackMs ?? 300_000, 290 * COINBASE_GRANULARITY_S * 1000);
  return {
    source: 'coinbase',
    async priceAt(asset, tsMs) {
      const product = opts.products[asset];
      if (!product) return null;
      const q = new URLSearchParams({
        granularity: String(COINBASE_GRANULARITY_S),
        start: new Date(tsMs - lookback).toISOString(),
        end: new Date(tsMs).toISOString(),
      });
      return pickCandle(await getJson(`${opts.apiUrl}/products/${encodeURIComponent(product)}/candles?${q}`, opts), tsMs, now());
    },
  };
}
