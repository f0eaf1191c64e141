// PRICE_FEED source `okx`: OKX spot 1 s candles, GET <OKX_API_URL>/api/v5/market/history-candles with
// instId, bar=1s, after (ms) and limit, as OKX documents it (www.okx.com/docs-v5, "GET / Candlesticks
// history": "Retrieve history candlestick charts from recent years (It is last 3 months supported for 1s
// candlestick)"; `after` returns "records earlier than the requested ts"). The answer is
// {"code":"0","msg":"","data":[[ts, o, h, l, c, vol, volCcy, volCcyQuote, confirm]]}, newest first, every
// field a string, ts the candle's opening time (ms) and confirm "1" once the candle is completed. Errors come
// as a non-"0" code (51001: the instrument does not exist; 50011: rate limit, HTTP 200 or 429). Fixtures:
// src/adapters/prices/fixtures/okx-history-candles.json, okx-instruments.json.
// The price at t is the close of THE 1 s candle that closed at or before t (opened at t - 1000 for a whole
// second), observed at its last millisecond; `candle1s:<open ms>` identifies it. Asked with after = its open
// + 1000 and limit 1, so the answer is that candle or an older one: an older one is never used (the source
// abstains, `not_published_yet` until OKX_PUBLICATION_DELAY_MS after the boundary, then
// `boundary_not_published`). Prices are USDT, taken as USD.
import { decimalToMicros } from './decimal.js';
import { boundaryMissing, type PriceFeed, type PriceObservation, type SourceProbe } from './feed.js';
import { klineOpenAt } from './binance.js';
import { getJson, SourceError, type HttpSourceOptions } from './http-json.js';
import { Abstain } from './reasons.js';

export interface OkxOptions extends HttpSourceOptions {
  apiUrl: string;
  /** Asset -> OKX spot instrument (BTC -> BTC-USDT). */
  instruments: Readonly<Record<string, string>>;
  /** How long after a boundary its 1 s candle may still appear (default 10 s). */
  publicationDelayMs?: number;
}

/** OKX's rate limit is per 2 seconds ("20 requests per 2 seconds"): a code 50011 answered with HTTP 200 closes the circuit that long. */
const OKX_RATE_WINDOW_MS = 2_000;

interface OkxAnswer {
  code?: string;
  msg?: string;
  data?: unknown;
}

/** The `data` of an OKX answer; its error code as an Abstain (51001: not listed; 5001x: rate limited). */
export async function okxData(answer: unknown, http: HttpSourceOptions, now: number): Promise<unknown[]> {
  const a = answer as OkxAnswer;
  if (typeof a !== 'object' || a === null || typeof a.code !== 'string') throw new SourceError('OKX answer without a code');
  if (a.code === '0') {
    if (!Array.isArray(a.data)) throw new SourceError('OKX answer without data');
    return a.data;
  }
  if (a.code === '51001') throw new Abstain('not_listed', `OKX ${a.code}: ${a.msg ?? ''}`);
  if (a.code === '50011' || a.code === '50013') {
    const untilMs = now + OKX_RATE_WINDOW_MS;
    if (http.circuit && http.source) await http.circuit.open(http.source, untilMs, 'rate_limited');
    throw new Abstain('rate_limited', `OKX ${a.code}: ${a.msg ?? ''}`, { untilMs });
  }
  throw new Abstain('source_error', `OKX ${a.code}: ${(a.msg ?? '').slice(0, 120)}`);
}

/** The completed 1 s candle of `rows` opened at `openTime`, `pending` if it is not completed yet, or null. */
export function pickOkxCandle(rows: unknown[], openTime: number): PriceObservation | 'pending' | null {
  for (const c of rows) {
    if (!Array.isArray(c) || c.length < 9 || typeof c[0] !== 'string' || !/^\d{1,16}$/.test(c[0]) || typeof c[4] !== 'string') {
      throw new SourceError(`malformed OKX candle: ${JSON.stringify(c).slice(0, 120)}`);
    }
    const price = decimalToMicros(c[4]);
    if (price === null || price <= 0n) throw new SourceError(`malformed OKX candle: ${JSON.stringify(c).slice(0, 120)}`);
    if (Number(c[0]) !== openTime) continue;
    if (c[8] !== '1') return 'pending';
    return { priceMicros: price, observedAtMs: openTime + 999, sourceRef: `candle1s:${openTime}` };
  }
  return null;
}

export function createOkxFeed(opts: OkxOptions): PriceFeed {
  const now = opts.now ?? Date.now;
  const http: HttpSourceOptions = { ...opts, source: opts.source ?? 'okx' };
  const delay = opts.publicationDelayMs ?? 10_000;
  const instOf = (asset: string) => {
    const inst = opts.instruments[asset];
    if (!inst) throw new Abstain('not_listed', `no OKX_INSTRUMENTS entry for ${asset}`);
    return inst;
  };
  const candle = async (instId: string, openTime: number) => {
    const q = new URLSearchParams({ instId, bar: '1s', after: String(openTime + 1000), limit: '1' });
    const data = await okxData(await getJson(`${opts.apiUrl}/api/v5/market/history-candles?${q}`, http), http, now());
    return pickOkxCandle(data, openTime);
  };
  return {
    source: http.source!,
    covers: (asset) => opts.instruments[asset] !== undefined,
    async priceAt(asset, tsMs) {
      const instId = instOf(asset);
      const openTime = klineOpenAt(tsMs);
      const what = `the ${instId} 1 s candle opened at ${openTime}`;
      if (now() <= openTime + 999) throw boundaryMissing(what, tsMs, now(), delay);
      const c = await candle(instId, openTime);
      if (c === null || c === 'pending') throw boundaryMissing(what, tsMs, now(), delay);
      return c;
    },
    async lookup(asset, ref) {
      const m = /^candle1s:(\d{1,16})$/.exec(ref);
      if (!m) return null;
      const c = await candle(instOf(asset), Number(m[1]));
      return c === 'pending' ? null : c;
    },
    async probe(assets) {
      const out: SourceProbe = { listed: [], unlisted: [] };
      for (const asset of assets) {
        const instId = opts.instruments[asset];
        if (!instId) {
          out.unlisted.push(asset);
          continue;
        }
        try {
          const q = new URLSearchParams({ instType: 'SPOT', instId });
          const data = (await okxData(await getJson(`${opts.apiUrl}/api/v5/public/instruments?${q}`, http), http, now())) as Array<{
            instId?: string;
            state?: string;
          }>;
          (data.some((d) => d.instId === instId && d.state === 'live') ? out.listed : out.unlisted).push(asset);
        } catch (err) {
          if (err instanceof Abstain && (err.reason === 'not_listed' || err.status === 400)) out.unlisted.push(asset);
          else throw err;
        }
      }
      return out;
    },
  };
}
