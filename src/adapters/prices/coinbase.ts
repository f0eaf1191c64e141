// PRICE_FEED source `coinbase`: Coinbase Exchange candles, GET <COINBASE_API_URL>/products/<product>/candles
// with granularity (seconds, one of 60, 300, 900, 3600, 21600, 86400), start and end (ISO 8601), as Coinbase
// documents it (docs.cdp.coinbase.com, Exchange REST API, "Get product candles"). Each candle is an array
// [time (bucket start, Unix s), low, high, open, close, volume] of JSON numbers, newest first, at most 300,
// and buckets without trades are absent. Fixtures: src/adapters/prices/fixtures/coinbase-candles.json,
// coinbase-product.json.
// The price at t is the close of THE 60 s candle that ended at or before t (exactly at t for a window aligned
// on whole minutes), observed at the bucket's last millisecond; the bucket start is its identifier. When that
// bucket is absent (not published yet, or a minute without trades) the source abstains, asking again until
// COINBASE_PUBLICATION_DELAY_MS after the boundary; an older candle never stands in for it. The numbers are
// read as their JSON text, not floats.
import { decimalToMicros } from './decimal.js';
import { boundaryMissing, type PriceFeed, type PriceObservation, type SourceProbe } from './feed.js';
import { getJson, SourceError, type HttpSourceOptions } from './http-json.js';
import { Abstain } from './reasons.js';

export interface CoinbaseOptions extends HttpSourceOptions {
  apiUrl: string;
  /** Asset -> Coinbase product (BTC -> BTC-USD). */
  products: Readonly<Record<string, string>>;
  /** How long after a boundary its candle may still appear (default 2 minutes). */
  publicationDelayMs?: number;
}

export const COINBASE_GRANULARITY_S = 60;
const BUCKET_MS = COINBASE_GRANULARITY_S * 1000;
const isInt = (v: unknown): v is string => typeof v === 'string' && /^\d{1,12}$/.test(v);

/** The candle of `rows` starting at `startS` once it has ended (before `nowMs`), or null; throws on a malformed answer. */
export function pickCandle(rows: unknown, startS: number, nowMs: number): PriceObservation | null {
  if (!Array.isArray(rows)) throw new SourceError('candles answer is not an array');
  for (const c of rows) {
    if (!Array.isArray(c) || c.length < 5 || !isInt(c[0]) || typeof c[4] !== 'string') {
      throw new SourceError(`malformed candle: ${JSON.stringify(c).slice(0, 120)}`);
    }
    const price = decimalToMicros(c[4]);
    if (price === null || price <= 0n) throw new SourceError(`malformed candle: ${JSON.stringify(c).slice(0, 120)}`);
    const lastMs = (Number(c[0]) + COINBASE_GRANULARITY_S) * 1000 - 1;
    if (Number(c[0]) === startS && lastMs < nowMs) return { priceMicros: price, observedAtMs: lastMs, sourceRef: `candle:${startS}` };
  }
  return null;
}

/** The start (Unix s) of the last 60 s bucket that ended at or before `tsMs`. */
export const candleStartAt = (tsMs: number) => (Math.floor((tsMs - (BUCKET_MS - 1)) / BUCKET_MS) * BUCKET_MS) / 1000;

export function createCoinbaseFeed(opts: CoinbaseOptions): PriceFeed {
  const now = opts.now ?? Date.now;
  const http: HttpSourceOptions = { ...opts, source: opts.source ?? 'coinbase' };
  const delay = opts.publicationDelayMs ?? 120_000;
  const productOf = (asset: string) => {
    const product = opts.products[asset];
    if (!product) throw new Abstain('not_listed', `no COINBASE_PRODUCTS entry for ${asset}`);
    return product;
  };
  const candle = async (product: string, startS: number) => {
    const q = new URLSearchParams({
      granularity: String(COINBASE_GRANULARITY_S),
      start: new Date(startS * 1000).toISOString(),
      end: new Date(startS * 1000 + BUCKET_MS).toISOString(),
    });
    return pickCandle(await getJson(`${opts.apiUrl}/products/${encodeURIComponent(product)}/candles?${q}`, http), startS, now());
  };
  return {
    source: http.source!,
    covers: (asset) => opts.products[asset] !== undefined,
    async priceAt(asset, tsMs) {
      const product = productOf(asset);
      const startS = candleStartAt(tsMs);
      const what = `the ${product} 60 s candle of ${startS}`;
      if (now() <= startS * 1000 + BUCKET_MS - 1) throw boundaryMissing(what, tsMs, now(), delay);
      const c = await candle(product, startS);
      if (!c) throw boundaryMissing(what, tsMs, now(), delay);
      return c;
    },
    async lookup(asset, ref) {
      const m = /^candle:(\d{1,12})$/.exec(ref);
      return m ? candle(productOf(asset), Number(m[1])) : null;
    },
    async probe(assets) {
      const out: SourceProbe = { listed: [], unlisted: [] };
      for (const asset of assets) {
        const product = opts.products[asset];
        if (!product) {
          out.unlisted.push(asset);
          continue;
        }
        try {
          const p = (await getJson(`${opts.apiUrl}/products/${encodeURIComponent(product)}`, http)) as { id?: string; status?: string };
          (p.id === product && p.status === 'online' ? out.listed : out.unlisted).push(asset);
        } catch (err) {
          if (err instanceof Abstain && (err.status === 404 || err.status === 400))
            out.unlisted.push(asset); // {"message":"NotFound"}
          else throw err;
        }
      }
      return out;
    },
  };
}
