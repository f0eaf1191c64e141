// A stand-in for a hosted JSON-RPC provider (Alchemy, Infura, QuickNode) in front of a test node (anvil,
// src/testing/anvil.ts): an HTTP server that forwards single and batch JSON-RPC requests to the node and, when a
// test switches them on at run time, behaves as such providers do (docs/testing.md, "The test chain: Circle's
// USDC and a provider stand-in"):
//   rateLimit                        HTTP 429 with Retry-After and the provider's body, for N requests, for a time,
//                                    or per method (rpc-provider-throttle.ts)
//   capLogs                          eth_getLogs range and size caps with Alchemy's, Infura's or QuickNode's
//                                    errors (rpc-provider-logs.ts, rpc-provider-errors.ts)
//   stall                            requests (all, or some methods) held for N ms or until released
//   lag                              a lagging backend: the true head, but `[]`/`null`/older state for the newest
//                                    K blocks (rpc-provider-lag.ts)
//   hideReceipts / hideReceiptsFor   receipts answered `null` for a while after mining (rpc-provider-receipts.ts)
//   counts / stats / resetCounts     requests received, per method (a benchmark's requests per minute; "a banned
//                                    source receives no request")
//   refuse / resume                  the endpoint refuses connections (node unreachable), then accepts again
//   reset                            every behaviour off, stalled requests released (counters kept)
// A test holds the proxy in-process and calls these methods directly; point the service's CHAIN_RPC_URL at `url`
// (startOnchainStack({ provider: true }) in src/testing/onchain-stack.ts does); a drill against a running
// deployment runs it standalone and switches behaviours over HTTP (scripts/rpc-provider.ts,
// rpc-provider-control.ts). Never infer from silence: what
// the proxy makes the node say (`null`, `[]`) is what a real provider says, and the service must treat it as
// "not yet known".
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort } from './private-servers.js';
import { Lag } from './rpc-provider-lag.js';
import { LogCaps, type LogCapOptions, type LogCapProvider } from './rpc-provider-logs.js';
import { ReceiptHiding, type HideReceiptsOptions } from './rpc-provider-receipts.js';
import { RateLimits, Stalls, type RateLimitOptions, type Stall, type StallOptions } from './rpc-provider-throttle.js';
import { errorReply, quantity, type Behaviour, type CallContext, type RpcCall, type RpcReply } from './rpc-provider-types.js';

export type { HideReceiptsOptions } from './rpc-provider-receipts.js';
export type { LogCapOptions, LogCapProvider } from './rpc-provider-logs.js';
export type { RateLimitOptions, Stall, StallOptions } from './rpc-provider-throttle.js';
export type { ProviderName, RateLimitBody } from './rpc-provider-errors.js';

export interface ProviderProxyOptions {
  /** The node's HTTP JSON-RPC URL (anvil's `url`). */
  upstream: string;
  /** Port on 127.0.0.1; omitted: a free one. */
  port?: number;
  /** The clock (ms) of every time-based behaviour; a test may pass a fake one to step time exactly. */
  now?: () => number;
}

export interface ProviderStats {
  /** HTTP requests received (refused or not). */
  requests: number;
  /** Of which JSON-RPC batches. */
  batches: number;
  /** JSON-RPC calls received (each member of a batch counts). */
  calls: number;
  /** HTTP requests answered 429. */
  rateLimited: number;
}

export interface ProviderProxy {
  /** The provider's endpoint: give it to the service as CHAIN_RPC_URL. */
  readonly url: string;
  readonly port: number;
  /** Answers matching requests 429 with `Retry-After` and the provider's body (rules add up; the first that applies wins). */
  rateLimit(opts?: RateLimitOptions): void;
  clearRateLimits(): void;
  /** Caps eth_getLogs as `provider` does (defaults: its real caps); a name alone takes every default. */
  capLogs(opts: LogCapOptions | LogCapProvider): void;
  uncapLogs(): void;
  /** Holds matching requests for `ms` (real time) or until released; `phase: 'response'` holds the node's answer instead. */
  stall(opts?: StallOptions): Stall;
  /** Releases every stalled request and removes every stall. */
  releaseStalls(): void;
  /** Reads are answered by a node `blocks` behind the true head (0: no lag); eth_blockNumber stays true. */
  lag(blocks: number): void;
  /** `eth_getTransactionReceipt` answers `null` for a mined transaction until `forMs` after the proxy first saw it mined. */
  hideReceipts(opts: HideReceiptsOptions): void;
  /** hideReceipts({ forMs, hashes }). */
  hideReceiptsFor(forMs: number, hashes?: readonly string[]): void;
  /** Receipts are answered again at once. */
  showReceipts(): void;
  /** When the proxy first saw this transaction mined (its clock, ms), if it has. */
  seenMinedAt(hash: string): number | undefined;
  /** JSON-RPC calls received per method since the start or the last resetCounts() (each batch member counts). */
  counts(): Record<string, number>;
  stats(): ProviderStats;
  resetCounts(): void;
  /** Refuses every connection and drops open ones until resume(): the node is unreachable. */
  refuse(): Promise<void>;
  resume(): Promise<void>;
  /** Turns every behaviour off and releases stalled requests (counters are kept). */
  reset(): void;
  stop(): Promise<void>;
}

export async function startProviderProxy(opts: ProviderProxyOptions): Promise<ProviderProxy> {
  const now = opts.now ?? Date.now;
  const port = opts.port ?? (await freePort());
  const receipts = new ReceiptHiding();
  const logCaps = new LogCaps();
  const lag = new Lag();
  const limits = new RateLimits();
  const stalls = new Stalls();
  // Order: the lagging node rewrites `latest` first; after the node answers, the lag filters, then receipts hide, then log caps count.
  const behaviours: Behaviour[] = [lag, receipts, logCaps];
  let counts = new Map<string, number>();
  let stats = { requests: 0, batches: 0, calls: 0 };

  const upstream = async (body: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(opts.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, text: await res.text() };
  };
  let internalId = 0;
  const nodeHead = async (): Promise<bigint> => {
    const { text } = await upstream(JSON.stringify({ jsonrpc: '2.0', id: `proxy-${++internalId}`, method: 'eth_blockNumber', params: [] }));
    const head = quantity((JSON.parse(text) as RpcReply).result);
    if (head === undefined) throw new Error(`provider proxy: the node answered eth_blockNumber with ${text}`);
    return head;
  };

  const answer = async (calls: RpcCall[], batch: boolean): Promise<{ status: number; body: unknown }> => {
    let head: Promise<bigint> | undefined;
    const ctx: CallContext = { now: now(), head: () => (head ??= nodeHead()) };
    const replies: Array<RpcReply | undefined> = [];
    const sent: RpcCall[] = [];
    for (const [i, original] of calls.entries()) {
      let call = original;
      for (const b of behaviours) {
        const d = await b.before?.(call, ctx);
        if (d && 'http' in d)
          return { status: d.http.status, body: batch ? calls.map((c) => ({ ...d.http.reply, id: c.id ?? null })) : d.http.reply };
        if (d && 'reply' in d) {
          replies[i] = d.reply;
          break;
        }
        if (d && 'call' in d) call = d.call;
      }
      if (!replies[i]) sent[i] = call;
    }
    const forwarded = sent.filter(Boolean);
    if (forwarded.length) {
      const { status, text } = await upstream(JSON.stringify(batch ? forwarded : forwarded[0]));
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { status, body: text };
      }
      const answers = Array.isArray(body) ? (body as RpcReply[]) : [body as RpcReply];
      for (const [i, call] of sent.entries()) {
        if (!call) continue;
        const a = answers.find((r) => r.id === call.id) ?? errorReply(call, { code: -32603, message: 'no answer from the node' });
        replies[i] = a;
      }
    }
    for (const [i, call] of calls.entries()) {
      let r = replies[i]!;
      if (!r.error) for (const b of behaviours) if (b.after) r = await b.after(sent[i] ?? call, r, ctx);
      replies[i] = r;
    }
    return { status: 200, body: batch ? replies : replies[0] };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    stats.requests++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    const batch = Array.isArray(parsed);
    const calls = (batch ? parsed : [parsed]) as RpcCall[];
    if (!calls.length || !calls.every((c) => c && typeof c === 'object' && typeof c.method === 'string')) {
      // Not JSON-RPC the proxy understands: the node answers it as it is.
      const { status, text } = await upstream(raw);
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      return;
    }
    if (batch) stats.batches++;
    stats.calls += calls.length;
    for (const c of calls) counts.set(c.method, (counts.get(c.method) ?? 0) + 1);
    const limited = limits.check(calls, batch, now());
    if (limited) {
      res.writeHead(429, limited.headers).end(limited.body);
      return;
    }
    await stalls.wait(calls, 'request');
    const { status, body } = await answer(calls, batch);
    await stalls.wait(calls, 'response');
    res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((req, res) => {
        handle(req, res).catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(503, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `provider proxy: ${(err as Error).message}` } }),
          );
        });
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
      server = s;
    });
  const close = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (!s) return resolve();
      s.close(() => resolve());
      s.closeAllConnections();
    });
  await listen();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    rateLimit: (o = {}) => limits.add(o, now()),
    clearRateLimits: () => limits.clear(),
    capLogs: (o) => logCaps.set(typeof o === 'string' ? { provider: o } : o),
    uncapLogs: () => logCaps.clear(),
    stall: (o = {}) => stalls.add(o),
    releaseStalls: () => stalls.releaseAll(),
    lag: (blocks) => lag.set(blocks),
    hideReceipts: (o) => receipts.set(o),
    hideReceiptsFor: (forMs, hashes) => receipts.set({ forMs, hashes }),
    showReceipts: () => receipts.clear(),
    seenMinedAt: (hash) => receipts.seenMinedAt(hash),
    counts: () => Object.fromEntries(counts),
    stats: () => ({ ...stats, rateLimited: limits.refused }),
    resetCounts() {
      counts = new Map();
      stats = { requests: 0, batches: 0, calls: 0 };
      limits.refused = 0;
    },
    refuse: close,
    resume: async () => {
      if (!server) await listen();
    },
    reset() {
      receipts.clear();
      logCaps.clear();
      lag.set(0);
      limits.clear();
      stalls.releaseAll();
    },
    async stop() {
      stalls.releaseAll();
      await close();
    },
  };
}
