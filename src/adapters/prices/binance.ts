// PRICE_FEED source `binance`: Binance spot 1 s klines, GET <BINANCE_API_URL>/api/v3/klines with symbol,
// interval=1s, startTime, endTime (ms) and limit, as Binance documents it (developers.binance.com, "Kline/
// Candlestick data"). Each kline is an array: [open time ms, open, high, low, close, volume, close time ms,
// quote volume, trades, taker buy base, taker buy quote, ignore], prices as decimal strings. Fixtures:
// src/adapters/prices/fixtures/binance-klines.json, binance-exchange-info.json.
// The price at t is the close of THE 1 s kline that closed at or before t (close time = open time + 999, so
// at a whole second t it is the kline opened at t - 1000), observed at its close time; its open time is its
// identifier. Only that kline is asked for: when Binance has not published it, the source abstains
// (`not_published_yet`, asked again, then `boundary_not_published` after BINANCE_PUBLICATION_DELAY_MS): an
// older kline never stands in for it. Prices are USDT, taken as USD. BINANCE_API_URL may be
// https://data-api.binance.vision, Binance's market-data-only host (the fix for a 451 from api.binance.com).
import { decimalToMicros } from './decimal.js';
import { boundaryMissing, type PriceFeed, type PriceObservation, type SourceProbe } from './feed.js';
import { getJson, SourceError, type HttpSourceOptions } from './http-json.js';
import { Abstain } from './reasons.js';

export interface BinanceOptions extends HttpSourceOptions {
  apiUrl: string;
  /** Asset -> Binance symbol (BTC -> BTCUSDT). */
  symbols: Readonly<Record<string, string>>;
  /** How long after a boundary its kline may still appear (default 10 s). */
  publicationDelayMs?: number;
}

const isInt = (v: unknown): v is string => typeof v === 'string' && /^\d{1,16}$/.test(v);

/** The kline of `rows` opened at `openTime` once it has closed (before `nowMs`), or null; throws on a malformed answer. */
export function pickKline(rows: unknown, openTime: number, nowMs: number): PriceObservation | null {
  if (!Array.isArray(rows)) throw new SourceError('klines answer is not an array');
  for (const k of rows) {
    if (!Array.isArray(k) || k.length < 7 || !isInt(k[0]) || !isInt(k[6]) || typeof k[4] !== 'string') {
      throw new SourceError(`malformed kline: ${JSON.stringify(k).slice(0, 120)}`);
    }
    const price = decimalToMicros(k[4]);
    const closeTime = Number(k[6]);
    if (price === null || price <= 0n || closeTime < Number(k[0]))
      throw new SourceError(`malformed kline: ${JSON.stringify(k).slice(0, 120)}`);
    if (Number(k[0]) === openTime && closeTime < nowMs)
      return { priceMicros: price, observedAtMs: closeTime, sourceRef: `kline:${openTime}` };
  }
  return null;
}

/** The open time of the last 1 s kline whose close time (open + 999) is at or before `tsMs`. */
export const klineOpenAt = (tsMs: number) => Math.floor((tsMs - 999) / 1000) * 1000;

export function createBinanceFeed(opts: BinanceOptions): PriceFeed {
  const now = opts.now ?? Date.now;
  const http: HttpSourceOptions = { ...opts, source: opts.source ?? 'binance' };
  const delay = opts.publicationDelayMs ?? 10_000;
  const symbolOf = (asset: string) => {
    const symbol = opts.symbols[asset];
    if (!symbol) throw new Abstain('not_listed', `no BINANCE_SYMBOLS entry for ${asset}`);
    return symbol;
  };
  const kline = async (symbol: string, openTime: number) => {
    const q = new URLSearchParams({ symbol, interval: '1s', startTime: String(openTime), endTime: String(openTime + 999), limit: '1' });
    return pickKline(await getJson(`${opts.apiUrl}/api/v3/klines?${q}`, http), openTime, now());
  };
  return {
    source: http.source!,
    covers: (asset) => opts.symbols[asset] !== undefined,
    async priceAt(asset, tsMs) {
      const symbol = symbolOf(asset);
      const openTime = klineOpenAt(tsMs);
      const what = `the ${symbol} 1 s kline opened at ${openTime}`;
      if (now() <= openTime + 999) throw boundaryMissing(what, tsMs, now(), delay);
      const k = await kline(symbol, openTime);
      if (!k) throw boundaryMissing(what, tsMs, now(), delay);
      return k;
    },
    async lookup(asset, ref) {
      const m = /^kline:(\d{1,16})$/.exec(ref);
      if (!m) return null;
      return kline(symbolOf(asset), Number(m[1]));
    },
    async probe(assets) {
      const out: SourceProbe = { listed: [], unlisted: [] };
      for (const asset of assets) {
        const symbol = opts.symbols[asset];
        if (!symbol) {
          out.unlisted.push(asset);
          continue;
        }
        try {
          const info = (await getJson(`${opts.apiUrl}/api/v3/exchangeInfo?${new URLSearchParams({ symbol })}`, http)) as {
            symbols?: Array<{ symbol?: string; status?: string }>;
          };
          const s = info.symbols?.find((x) => x.symbol === symbol);
          (s?.status === 'TRADING' ? out.listed : out.unlisted).push(asset);
        } catch (err) {
          // {"code":-1121,"msg":"Invalid symbol."}: Binance does not list it.
          if (err instanceof Abstain && err.status === 400 && err.body?.includes('-1121')) out.unlisted.push(asset);
          else throw err;
        }
      }
      return out;
    },
  };
}
