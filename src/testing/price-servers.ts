// Local HTTP servers answering in the price sources' documented formats (src/adapters/prices/fixtures/README.md),
// for the price source tests and the quorum integration tests: the machine has no internet, so the adapters
// only ever talk to 127.0.0.1. Prices come from a function of the time; what a source has published can lag
// (`visible`); faults (a status with its headers, a 10 s stall, malformed JSON, an empty answer) are queued per
// request or chosen per URL. Every request is logged with when it arrived and the status it got.
// Binance (klines, exchangeInfo) and Coinbase (candles, product) here; OKX and Pyth in price-servers-more.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = { status: number; headers?: Record<string, string>; body?: string } | 'stall' | 'garbage' | 'empty';

export interface PriceServer {
  url: string;
  /** Requests received, with their query. */
  requests: URL[];
  /** Every request: when it arrived (Date.now()) and the status answered. */
  log: Array<{ url: URL; atMs: number; status: number }>;
  /** Faults the next requests get, in order. */
  faults: Fault[];
  /** Set to make every request fail with 503 (a source that is down). */
  down: boolean;
  /** A fault for requests matching a rule (e.g. one product down), after `down` and the queued faults. */
  faultFor: ((url: URL) => Fault | undefined) | null;
  close(): Promise<void>;
}

/** Price (decimal text) of a symbol/product for a bucket starting at `startMs`, or null for a bucket without trades. */
export type PriceFn = (symbol: string, startMs: number) => string | null;

export interface ServeOptions {
  /** Whether the bucket starting at `startMs` is published yet (default: once it has ended). */
  visible?: (symbol: string, startMs: number) => boolean;
  /** Whether the source lists the symbol (default: all). */
  listed?: (symbol: string) => boolean;
}

/** An answer: the body with status 200, or [status, body]. */
type Answer = string | [number, string];

export async function serve(answer: (url: URL, headers: NodeJS.Dict<string | string[]>) => Answer): Promise<PriceServer> {
  const state = {
    requests: [] as URL[],
    log: [] as PriceServer['log'],
    faults: [] as Fault[],
    down: false,
    faultFor: null as PriceServer['faultFor'],
  };
  const stalls = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    state.requests.push(url);
    const entry = { url, atMs: Date.now(), status: 200 };
    state.log.push(entry);
    const fault = state.down ? { status: 503 } : (state.faults.shift() ?? state.faultFor?.(url));
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
    };
    if (fault === 'stall') {
      const t = setTimeout(() => (stalls.delete(t), send(200, '[]')), 10_000);
      stalls.add(t);
      return;
    }
    if (fault === 'garbage') return send(200, '[[1499040000000,"0.0163');
    if (fault === 'empty') return send(200, '[]');
    if (fault) return send(fault.status, fault.body ?? JSON.stringify({ code: -1003, msg: 'Too many requests' }), fault.headers);
    const a = answer(url, req.headers);
    return typeof a === 'string' ? send(200, a) : send(a[0], a[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of stalls) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

const INVALID_SYMBOL: Answer = [400, JSON.stringify({ code: -1121, msg: 'Invalid symbol.' })];

/**
 * GET /api/v3/klines?symbol&interval=1s&startTime&endTime&limit: 1 s klines with open time in [startTime, endTime];
 * GET /api/v3/exchangeInfo?symbol: the symbol TRADING, or -1121 Invalid symbol.
 */
export function startBinanceServer(price: PriceFn, opts: ServeOptions = {}): Promise<PriceServer> {
  const visible = opts.visible ?? ((_s: string, t: number) => t + 999 < Date.now());
  return serve((url) => {
    const symbol = url.searchParams.get('symbol') ?? '';
    if (url.pathname === '/api/v3/exchangeInfo') {
      if (opts.listed && !opts.listed(symbol)) return INVALID_SYMBOL;
      return JSON.stringify({
        timezone: 'UTC',
        serverTime: Date.now(),
        symbols: [{ symbol, status: 'TRADING', baseAsset: symbol.slice(0, 3) }],
      });
    }
    if (url.pathname !== '/api/v3/klines' || url.searchParams.get('interval') !== '1s') return INVALID_SYMBOL;
    const from = Math.ceil(Number(url.searchParams.get('startTime')) / 1000) * 1000;
    const to = Number(url.searchParams.get('endTime'));
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 500), 1000);
    const rows: string[] = [];
    for (let t = from; t <= to && rows.length < limit; t += 1000) {
      const p = visible(symbol, t) ? price(symbol, t) : null;
      if (p !== null) rows.push(`[${t},"${p}","${p}","${p}","${p}","1.00000000",${t + 999},"${p}",1,"0.50000000","0.50000000","0"]`);
    }
    return `[${rows.join(',')}]`;
  });
}

/**
 * GET /products/<product>/candles?granularity=60&start&end (ISO 8601): 60 s candles, newest first, numbers unquoted;
 * GET /products/<product>: the product online, or 404 NotFound.
 */
export function startCoinbaseServer(price: PriceFn, opts: ServeOptions = {}): Promise<PriceServer> {
  const visible = opts.visible ?? ((_p: string, t: number) => t + 59_999 < Date.now());
  return serve((url) => {
    const product = /^\/products\/([A-Z0-9-]+)$/.exec(url.pathname);
    if (product) {
      if (opts.listed && !opts.listed(product[1]!)) return [404, JSON.stringify({ message: 'NotFound' })];
      const [base, quote] = product[1]!.split('-');
      return JSON.stringify({ id: product[1], base_currency: base, quote_currency: quote, status: 'online', trading_disabled: false });
    }
    const m = /^\/products\/([A-Z0-9-]+)\/candles$/.exec(url.pathname);
    if (!m || url.searchParams.get('granularity') !== '60') return [400, JSON.stringify({ message: 'Unsupported granularity' })];
    const from = Math.floor(Date.parse(url.searchParams.get('start')!) / 60_000) * 60;
    const to = Math.floor(Date.parse(url.searchParams.get('end')!) / 1000);
    const rows: string[] = [];
    for (let t = from; t <= to; t += 60) {
      const p = visible(m[1]!, t * 1000) ? price(m[1]!, t * 1000) : null;
      if (p !== null) rows.unshift(`[${t}, ${p}, ${p}, ${p}, ${p}, 12.3]`);
    }
    return `[${rows.slice(0, 300).join(',')}]`;
  });
}
