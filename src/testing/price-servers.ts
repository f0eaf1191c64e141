// Local HTTP servers answering in Binance's klines and Coinbase Exchange's candles formats (see
// src/domain/prices/fixtures/README.md), for the price source tests and the quorum integration test: the
// machine has no internet, so the adapters only ever talk to 127.0.0.1. Prices come from a function of the
// time; faults (a status, a 10 s stall, malformed JSON, an empty answer) are queued per request.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = { status: number } | 'stall' | 'garbage' | 'empty';

export interface PriceServer {
  url: string;
  /** Requests received, with their query. */
  requests: URL[];
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

async function serve(answer: (url: URL) => string | null): Promise<PriceServer> {
  const state = { requests: [] as URL[], faults: [] as Fault[], down: false, faultFor: null as PriceServer['faultFor'] };
  const stalls = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    state.requests.push(url);
    const fault = state.down ? { status: 503 } : (state.faults.shift() ?? state.faultFor?.(url));
    const send = (status: number, body: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    if (fault === 'stall') {
      const t = setTimeout(() => (stalls.delete(t), send(200, '[]')), 10_000);
      stalls.add(t);
      return;
    }
    if (fault === 'garbage') return send(200, '[[1499040000000,"0.0163');
    if (fault === 'empty') return send(200, '[]');
    if (fault) return send(fault.status, JSON.stringify({ code: -1003, msg: 'Too many requests' }));
    const body = answer(url);
    return body === null ? send(400, JSON.stringify({ code: -1121, msg: 'Invalid symbol.' })) : send(200, body);
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

/** GET /api/v3/klines?symbol&interval=1s&startTime&endTime&limit: 1 s klines with open time in [startTime, endTime]. */
export function startBinanceServer(price: PriceFn): Promise<PriceServer> {
  return serve((url) => {
    if (url.pathname !== '/api/v3/klines' || url.searchParams.get('interval') !== '1s') return null;
    const symbol = url.searchParams.get('symbol') ?? '';
    const from = Math.ceil(Number(url.searchParams.get('startTime')) / 1000) * 1000;
    const to = Number(url.searchParams.get('endTime'));
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 500), 1000);
    const rows: string[] = [];
    for (let t = from; t <= to && rows.length < limit; t += 1000) {
      const p = price(symbol, t);
      if (p !== null) rows.push(`[${t},"${p}","${p}","${p}","${p}","1.00000000",${t + 999},"${p}",1,"0.50000000","0.50000000","0"]`);
    }
    return `[${rows.join(',')}]`;
  });
}

/** GET /products/<product>/candles?granularity=60&start&end (ISO 8601): 60 s candles, newest first, numbers unquoted. */
export function startCoinbaseServer(price: PriceFn): Promise<PriceServer> {
  return serve((url) => {
    const m = /^\/products\/([A-Z0-9-]+)\/candles$/.exec(url.pathname);
    if (!m || url.searchParams.get('granularity') !== '60') return null;
    const from = Math.floor(Date.parse(url.searchParams.get('start')!) / 60_000) * 60;
    const to = Math.floor(Date.parse(url.searchParams.get('end')!) / 1000);
    const rows: string[] = [];
    for (let t = from; t <= to; t += 60) {
      const p = price(m[1]!, t * 1000);
      if (p !== null) rows.unshift(`[${t}, ${p}, ${p}, ${p}, ${p}, 12.3]`);
    }
    return `[${rows.slice(0, 300).join(',')}]`;
  });
}
