// Local stand-ins for OKX and Pyth's Hermes, in their documented formats (src/adapters/prices/fixtures/README.md),
// like the Binance and Coinbase ones of price-servers.ts (same faults, log and lag).
import { serve, type PriceFn, type PriceServer, type ServeOptions } from './price-servers.js';

const okx = (data: unknown, code = '0', msg = '') => JSON.stringify({ code, msg, data });

/**
 * GET /api/v5/market/history-candles?instId&bar=1s&after&limit: 1 s candles opened before `after`, newest first,
 * each [ts, o, h, l, c, vol, volCcy, volCcyQuote, confirm], all strings;
 * GET /api/v5/public/instruments?instType=SPOT&instId: the instrument `live`, or code 51001.
 */
export function startOkxServer(price: PriceFn, opts: ServeOptions = {}): Promise<PriceServer> {
  const visible = opts.visible ?? ((_i: string, t: number) => t + 999 < Date.now());
  return serve((url) => {
    const instId = url.searchParams.get('instId') ?? '';
    if (url.pathname === '/api/v5/public/instruments') {
      if (opts.listed && !opts.listed(instId)) return okx([], '51001', "Instrument ID, Instrument ID code or Spread ID doesn't exist.");
      const [baseCcy, quoteCcy] = instId.split('-');
      return okx([{ instType: 'SPOT', instId, baseCcy, quoteCcy, state: 'live', listTime: '1606468572000' }]);
    }
    if (url.pathname !== '/api/v5/market/history-candles' || url.searchParams.get('bar') !== '1s')
      return [400, okx([], '51000', 'Parameter bar error')];
    const after = Number(url.searchParams.get('after') ?? Date.now());
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 300);
    const rows: string[][] = [];
    // Newest first, every second before `after` back to a minute earlier (a stand-in's history is enough for the tests).
    for (let t = Math.ceil(after / 1000) * 1000 - 1000; t > after - 61_000 && rows.length < limit; t -= 1000) {
      const p = visible(instId, t) ? price(instId, t) : null;
      if (p !== null) rows.push([String(t), p, p, p, p, '1.5', '145000.5', '145000.5', '1']);
    }
    return okx(rows);
  });
}

/** Pyth's integer and exponent of a decimal text ("97001.12345678" -> 9700112345678, -8). */
function pythInteger(text: string): { price: string; expo: number } {
  const [i, f = ''] = text.split('.');
  return { price: BigInt(`${i}${f.padEnd(8, '0').slice(0, 8)}`).toString(), expo: -8 };
}

const update = (id: string, text: string, s: number) => {
  const { price, expo } = pythInteger(text);
  const p = { price, conf: '2528354539', expo, publish_time: s };
  return { id, price: p, ema_price: p, metadata: { slot: 161371489 + s, proof_available_time: s + 1, prev_publish_time: s - 1 } };
};

/**
 * Hermes: GET /v2/updates/price/<s>?ids[]=0x<id>&parsed=true: the first update with publish_time >= s (its price
 * from `price(<id without 0x>, second ms)`), 404 "Update data not found" when there is none yet within a minute,
 * 404 "Price ids not found: <id>" for an unknown feed; GET /v2/updates/price/latest: the latest published second.
 * Wants `Authorization: Bearer <apiKey>` when `apiKey` is set (401 otherwise).
 */
export function startPythServer(price: PriceFn, opts: ServeOptions & { apiKey?: string } = {}): Promise<PriceServer> {
  const visible = opts.visible ?? ((_id: string, t: number) => t <= Date.now());
  return serve((url, headers) => {
    if (opts.apiKey && headers.authorization !== `Bearer ${opts.apiKey}`) return [401, 'Unauthorized'];
    const id = (url.searchParams.get('ids[]') ?? '').replace(/^0x/, '').toLowerCase();
    if (opts.listed && !opts.listed(id)) return [404, `Price ids not found: ${id}`];
    const m = /^\/v2\/updates\/price\/(\d+|latest)$/.exec(url.pathname);
    if (!m) return [404, 'Not Found'];
    const from = m[1] === 'latest' ? Math.floor(Date.now() / 1000) - 60 : Number(m[1]);
    const seconds = m[1] === 'latest' ? [...Array(61).keys()].map((k) => from + 60 - k) : [...Array(60).keys()].map((k) => from + k);
    for (const s of seconds) {
      const p = visible(id, s * 1000) ? price(id, s * 1000) : null;
      if (p !== null) return JSON.stringify({ binary: { encoding: 'hex', data: [] }, parsed: [update(id, p, s)] });
    }
    return [404, 'Update data not found'];
  });
}
