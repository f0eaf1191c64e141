// The transport of every chain read and write (docs/settlement.md, "Providers"): CHAIN_RPC_URL is one endpoint
// or several, comma-separated (e.g. a primary provider and a second one): several make a viem `fallback`
// transport (a request a provider fails goes to the next; an answer the node gives, such as a revert, does
// not). Over http(s), calls made in the same tick go as ONE JSON-RPC batch request (`batch`), so a scan's
// block and log reads cost one request, and the reconciliation's balances one per batch. A 429 is retried after
// the provider's Retry-After, read here (viem 2.57 turns a 429 with a JSON-RPC body into an RPC error and retries
// it on its own short backoff, ignoring the header), at most RETRY_AFTER_MAX_MS and RATE_LIMIT_RETRIES times. Each
// endpoint has at most RPC_MAX_IN_FLIGHT HTTP requests open per process; more wait their turn (no unbounded fan-out).
// Errors are shortened and their URLs reduced to scheme and host (src/redact-url.ts) before they are logged or
// stored (shortReason in chain.ts).
import { fallback, http, webSocket, type Transport } from 'viem';

/** HTTP requests open at once per endpoint and process. */
export const RPC_MAX_IN_FLIGHT = 8;
/** A Retry-After longer than this is not waited for: the 429 goes to the caller (a job retries on its next tick). */
export const RETRY_AFTER_MAX_MS = 30_000;
/** 429s in a row one request waits through. */
export const RATE_LIMIT_RETRIES = 3;

/** Calls per JSON-RPC batch request at most (providers cap batches: Alchemy 1,000, Infura and QuickNode less). */
export const RPC_BATCH_SIZE = 100;

export interface RpcTransportOptions {
  timeout: number;
  retryCount: number;
}

/** The endpoints of a CHAIN_RPC_URL value: comma-separated, blanks ignored. */
export function rpcUrls(value: string): string[] {
  return value
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u.length > 0);
}

/** A Retry-After header in ms (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Math.ceil(Number(header) * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** A counting semaphore: at most `n` holders; the others queue in order. */
function limiter(n: number) {
  let active = 0;
  const queue: Array<() => void> = [];
  return async <T>(f: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => queue.push(r));
    else active++;
    try {
      return await f();
    } finally {
      const next = queue.shift();
      if (next) next();
      else active--;
    }
  };
}

/** fetch for one endpoint: bounded in flight, a 429 waited out for its Retry-After. */
export function providerFetch(maxInFlight = RPC_MAX_IN_FLIGHT, base: typeof fetch = fetch): typeof fetch {
  const limit = limiter(maxInFlight);
  return (input, init) =>
    limit(async () => {
      for (let attempt = 0; ; attempt++) {
        const res = await base(input, init);
        if (res.status !== 429 || attempt >= RATE_LIMIT_RETRIES) return res;
        const wait = retryAfterMs(res.headers.get('retry-after'));
        if (wait === undefined || wait > RETRY_AFTER_MAX_MS || init?.signal?.aborted) return res;
        await res.body?.cancel();
        await sleep(wait, init?.signal);
      }
    });
}

function one(url: string, o: RpcTransportOptions): Transport {
  return /^wss?:/.test(url)
    ? webSocket(url, { timeout: o.timeout, retryCount: o.retryCount })
    : http(url, {
        timeout: o.timeout,
        retryCount: o.retryCount,
        batch: { batchSize: RPC_BATCH_SIZE, wait: 0 },
        fetchFn: providerFetch(),
      });
}

/** One endpoint's transport, or a fallback over several (tried in the order given). */
export function rpcTransport(value: string, o: RpcTransportOptions): Transport {
  const urls = rpcUrls(value);
  if (urls.length === 0) throw new Error('CHAIN_RPC_URL: no endpoint');
  if (urls.length === 1) return one(urls[0]!, o);
  return fallback(
    urls.map((u) => one(u, o)),
    { rank: false, retryCount: 1 },
  );
}

/** Closes the WebSocket connections of a client's transport (a fallback's too); http holds none. */
export async function closeTransport(transport: unknown): Promise<void> {
  const t = transport as {
    getRpcClient?: () => Promise<{ close(): void }>;
    transports?: Array<{ value?: { getRpcClient?: () => Promise<{ close(): void }> } }>;
  };
  if (t.getRpcClient) (await t.getRpcClient()).close();
  for (const sub of t.transports ?? []) if (sub.value?.getRpcClient) (await sub.value.getRpcClient()).close();
}
