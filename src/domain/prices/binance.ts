// PRICE_FEED source `binance`: Binance spot klines, GET <BINANCE_API_URL>/api/v3/klines with symbol,
// interval=1s, startTime, endTime (ms) and limit, as Binance documents it (developers.binance.com, "Kline/
// Candlestick data"). Each kline is an array: [open time ms, open, high, low, close, volume, close time ms,
// quote volume, trades, taker buy base, taker buy quote, ignore], prices as decimal strings. Fixtures:
// src/domain/prices/fixtures/binance-klines.json.
// The price at t is the close of the last 1 s kline that closed at or before t (close time = open time + 999),
// observed at its close time; the kline's open time is its identifier. Prices are USDT, taken as USD.
import { decimalToMicros } from './decimal.js';
import type { PriceFeed, PriceObservation } from './feed.js';
import { getJson, SourceError, type HttpSourceOptions } from './http-json.js';

export interface BinanceOptions extends HttpSourceOptions {
  apiUrl: string;
  /** Asset -> Binance symbol (BTC -> BTCUSDT). */
  symbols: Readonly<Record<string, string>>;
  /** How far back to look for the last kline (at most 1000 klines; default 60 s). */
  lookbackMs?: number;
  now?: () => number;
}

const isInt = (v: unknown): v is string => typeof v === 'string' && /^\d{1,16}$/.test(v);

/** The last kline of `rows` that closed at or before `tsMs` (and before `nowMs`), or null; throws on a malformed answer. */
export function pickKline(rows: unknown, tsMs: number, nowMs: number): PriceObservation | null {
  if (!Array.isArray(rows)) throw new SourceError('klines answer is not an array');
  let best: PriceObservation | null = null;
  let bestOpen = -1;
  for (const k of rows) {
    if (!Array.isArray(k) || k.length < 7 || !isInt(k[0]) || !isInt(k[6]) || typeof k[4] !== 'string') {
      throw new SourceError(`malformed kline: ${JSON.stringify(k).slice(0, 120)}`);
    }
    const openTime = Number(k[0]);
    const closeTime = Number(k[6]);
    const price = decimalToMicros(k[4]);
    if (price === null || price <= 0n || closeTime < openTime) throw new SourceError(`malformed kline: ${JSON.stringify(k).slice(0, 120)}`);
    if (closeTime > tsMs || closeTime >= nowMs || openTime <= bestOpen) continue;
    bestOpen = openTime;
    best = { priceMicros: price, observedAtMs: closeTime, sourceRef: `kline:${openTime}` };
  }
  return best;
}

export function createBinanceFeed(opts: BinanceOptions): PriceFeed {
  const now = opts.now ?? Date.now;
  const lookback = Math.min(opts.lookbackMs ?? 60_000, 999_000);
  return {
    source: 'binance',
    async priceAt(asset, tsMs) {
      const symbol = opts.symbols[asset];
      if (!symbol) return null;
      const lastOpen = Math.floor((tsMs - 999) / 1000) * 1000; // the last kline whose close time (open + 999) <= tsMs
      const q = new URLSearchParams({
        symbol,
        interval: '1s',
        startTime: String(lastOpen - lookback),
        // Its close time: whether endTime bounds open or close times, that kline is the last one included.
        endTime: String(lastOpen + 999),
        limit: '1000',
      });
      return pickKline(await getJson(`${opts.apiUrl}/api/v3/klines?${q}`, opts), tsMs, now());
    },
  };
}
