// PRICE_FEED source `pyth`: Pyth price updates by time from Hermes, GET <PYTH_API_URL>/v2/updates/price/
// <publish_time>?ids[]=<feed id>&parsed=true, as Pyth documents it (docs.pyth.network, "Use Historical Price
// Data (Benchmarks)"; Hermes' API: "This endpoint will return the first update whose publish_time is >= the
// provided value"). The answer is {"binary": {...}, "parsed": [{"id", "price": {"price", "conf", "expo",
// "publish_time"}, "ema_price": {...}, "metadata": {...}}]}, price and conf as decimal strings of integers,
// expo an integer: the price is price × 10^expo. 404 "Update data not found" (nothing yet at that time) and
// 404 "Price ids not found: ..." (an unknown feed) are its errors. Hermes wants a Pyth API key
// (PYTH_API_KEY, sent as `Authorization: Bearer`, never in the URL); without one it answers 401 (`blocked`).
// Fixtures: src/adapters/prices/fixtures/pyth-price-update.json.
// Pyth publish times are whole seconds. The price at t (a window boundary, a whole second T) is the update
// Hermes returns for publish_time T when its publish_time is T: observed at T. An update of a later second
// means Pyth published nothing in second T: the source abstains (`boundary_not_published`), never takes the
// update before it. Nothing yet: `not_published_yet` until PYTH_PUBLICATION_DELAY_MS after the boundary.
// The confidence interval is kept with the observation; `update:<publish time>` identifies it.
import { scaledToMicros } from './decimal.js';
import { boundaryMissing, type PriceFeed, type PriceObservation, type SourceProbe } from './feed.js';
import { getJson, SourceError, type HttpSourceOptions } from './http-json.js';
import { Abstain } from './reasons.js';

export interface PythOptions extends HttpSourceOptions {
  apiUrl: string;
  /** Asset -> Pyth price feed id (0x + 64 hex). */
  feeds: Readonly<Record<string, string>>;
  /** PYTH_API_KEY: sent as a bearer token. */
  apiKey?: string;
  /** How long after a boundary its update may still appear (default 10 s). */
  publicationDelayMs?: number;
}

const INT = /^-?\d{1,19}$/;

/** micros of `value` × 10^expo (exact, cut toward zero). */
export function pythToMicros(value: string, expo: number): bigint {
  return scaledToMicros(BigInt(value), -expo);
}

/** The parsed update of feed `id` (no 0x, lower case) from a Hermes answer, as an observation with its publish time (s). */
export function parsePythUpdate(answer: unknown, id: string): { obs: PriceObservation; publishTimeS: number } | null {
  const parsed = (answer as { parsed?: unknown })?.parsed;
  if (!Array.isArray(parsed)) throw new SourceError('Hermes answer without `parsed`');
  const u = parsed.find((x: { id?: unknown }) => typeof x?.id === 'string' && x.id.replace(/^0x/, '').toLowerCase() === id) as
    { price?: { price?: unknown; conf?: unknown; expo?: unknown; publish_time?: unknown } } | undefined;
  if (!u) return null;
  const p = u.price;
  const expo = Number(p?.expo);
  if (
    typeof p?.price !== 'string' ||
    !INT.test(p.price) ||
    typeof p.conf !== 'string' ||
    !/^\d{1,20}$/.test(p.conf) ||
    !Number.isInteger(expo) ||
    expo < -30 ||
    expo > 30 ||
    typeof p.publish_time !== 'string' ||
    !/^\d{1,12}$/.test(p.publish_time)
  ) {
    throw new SourceError(`malformed Pyth update: ${JSON.stringify(u).slice(0, 160)}`);
  }
  const priceMicros = pythToMicros(p.price, expo);
  if (priceMicros <= 0n) throw new SourceError(`Pyth price not positive: ${p.price}e${expo}`);
  const publishTimeS = Number(p.publish_time);
  return {
    publishTimeS,
    obs: {
      priceMicros,
      observedAtMs: publishTimeS * 1000,
      sourceRef: `update:${publishTimeS}`,
      confidenceMicros: pythToMicros(p.conf, expo),
    },
  };
}

export function createPythFeed(opts: PythOptions): PriceFeed {
  const now = opts.now ?? Date.now;
  const http: HttpSourceOptions = {
    ...opts,
    source: opts.source ?? 'pyth',
    headers: opts.apiKey ? { ...opts.headers, authorization: `Bearer ${opts.apiKey}` } : opts.headers,
  };
  const delay = opts.publicationDelayMs ?? 10_000;
  const idOf = (asset: string) => {
    const id = opts.feeds[asset];
    if (!id) throw new Abstain('not_listed', `no PYTH_FEEDS entry for ${asset}`);
    return id.replace(/^0x/, '').toLowerCase();
  };
  /** Hermes' first update at or after second `s`; null when it has none yet. */
  const updateFrom = async (id: string, s: number) => {
    try {
      const q = new URLSearchParams({ 'ids[]': `0x${id}`, parsed: 'true', encoding: 'hex' });
      const u = parsePythUpdate(await getJson(`${opts.apiUrl}/v2/updates/price/${s}?${q}`, http), id);
      if (!u) throw new Abstain('not_listed', `Hermes answered without feed ${id}`);
      return u;
    } catch (err) {
      if (err instanceof Abstain && err.status === 404) {
        if (err.body?.includes('Price ids not found')) throw new Abstain('not_listed', err.body);
        return null; // "Update data not found"
      }
      throw err;
    }
  };
  return {
    source: http.source!,
    covers: (asset) => opts.feeds[asset] !== undefined,
    async priceAt(asset, tsMs) {
      const id = idOf(asset);
      const s = Math.floor(tsMs / 1000);
      const what = `the Pyth update of second ${s}`;
      if (now() < s * 1000) throw boundaryMissing(what, tsMs, now(), delay);
      const u = await updateFrom(id, s);
      if (!u) throw boundaryMissing(what, tsMs, now(), delay);
      if (u.publishTimeS !== s)
        throw new Abstain('boundary_not_published', `Pyth published nothing in second ${s} (next update: ${u.publishTimeS})`);
      return u.obs;
    },
    async lookup(asset, ref) {
      const m = /^update:(\d{1,12})$/.exec(ref);
      if (!m) return null;
      const u = await updateFrom(idOf(asset), Number(m[1]));
      return u && u.publishTimeS === Number(m[1]) ? u.obs : null;
    },
    async probe(assets) {
      const out: SourceProbe = { listed: [], unlisted: [] };
      for (const asset of assets) {
        if (!opts.feeds[asset]) {
          out.unlisted.push(asset);
          continue;
        }
        const id = idOf(asset);
        try {
          const q = new URLSearchParams({ 'ids[]': `0x${id}`, parsed: 'true' });
          const u = parsePythUpdate(await getJson(`${opts.apiUrl}/v2/updates/price/latest?${q}`, http), id);
          (u ? out.listed : out.unlisted).push(asset);
        } catch (err) {
          if (err instanceof Abstain && err.status === 404) out.unlisted.push(asset);
          else throw err;
        }
      }
      return out;
    },
  };
}
