// A tiny HTTP control API for the provider stand-in (src/testing/rpc-provider.ts), for a drill against a running
// deployment where the proxy runs as its own process (scripts/rpc-provider.ts): each behaviour is the proxy method
// of the same name, called with the request's JSON body as its one argument. On 127.0.0.1 only; no auth (a test
// tool: never expose it).
//   POST /hideReceipts {"forMs":60000}     POST /showReceipts
//   POST /rateLimit {"requests":5,"retryAfterSeconds":2,"provider":"infura"}      POST /clearRateLimits
//   POST /capLogs "quicknode"   POST /capLogs {"provider":"alchemy","maxLogs":100}   POST /uncapLogs
//   POST /stall {"methods":["eth_sendRawTransaction"]}  -> {"id":1}   POST /release {"id":1}   POST /releaseStalls
//   POST /lag 3     POST /refuse     POST /resume     POST /reset     POST /resetCounts
//   GET /counts -> {"counts":{...},"stats":{...}}       GET /seenMinedAt?hash=0x... -> {"at":1700000000000}
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderProxy, Stall } from './rpc-provider.js';

export interface ProviderControl {
  url: string;
  stop(): Promise<void>;
}

/** Methods callable with POST /<name>: each takes the body (or nothing) as its argument. */
const ACTIONS = [
  'hideReceipts',
  'showReceipts',
  'rateLimit',
  'clearRateLimits',
  'capLogs',
  'uncapLogs',
  'releaseStalls',
  'lag',
  'refuse',
  'resume',
  'reset',
  'resetCounts',
] as const;

export async function startProviderControl(proxy: ProviderProxy, port = 0): Promise<ProviderControl> {
  const stalls = new Map<number, Stall>();
  let nextStall = 0;
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { ok: true }));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://control');
        const name = url.pathname.slice(1);
        const text = Buffer.concat(chunks).toString('utf8').trim();
        const arg = text ? (JSON.parse(text) as unknown) : undefined;
        if (req.method === 'GET' && name === 'counts') return send(200, { counts: proxy.counts(), stats: proxy.stats() });
        if (req.method === 'GET' && name === 'seenMinedAt')
          return send(200, { at: proxy.seenMinedAt(url.searchParams.get('hash') ?? '') ?? null });
        if (req.method !== 'POST') return send(405, { error: 'POST /<behaviour> or GET /counts' });
        if (name === 'stall') {
          const id = ++nextStall;
          stalls.set(id, proxy.stall((arg ?? {}) as Parameters<ProviderProxy['stall']>[0]));
          return send(200, { id });
        }
        if (name === 'release') {
          const id = (arg as { id?: number } | undefined)?.id;
          const s = id === undefined ? undefined : stalls.get(id);
          if (!s) return send(404, { error: `no stall ${String(id)}` });
          s.release();
          stalls.delete(id!);
          return send(200, { ok: true, held: s.held() });
        }
        if (!(ACTIONS as readonly string[]).includes(name))
          return send(404, { error: `unknown behaviour ${name}; one of stall, release, ${ACTIONS.join(', ')}` });
        const fn = proxy[name as (typeof ACTIONS)[number]] as (a?: unknown) => unknown;
        await fn(arg);
        return send(200, { ok: true });
      })().catch((err: unknown) => send(400, { error: (err as Error).message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
