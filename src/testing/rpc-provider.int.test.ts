// The provider stand-in (src/testing/rpc-provider.ts) against a real anvil, observed through viem's public client:
// forwarding, rate limits (429 + Retry-After + the provider's body), stalled requests and the request counters.
// Receipt hiding: rpc-provider-receipts.int.test.ts; log caps: rpc-provider-logs.int.test.ts; the lagging
// backend: rpc-provider-lag.int.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, HttpRequestError, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS, startAnvil, type Anvil } from './anvil.js';
import { startProviderProxy, type ProviderProxy } from './rpc-provider.js';

let anvil: Anvil;
let proxy: ProviderProxy;
let client: PublicClient;
let clock = 5_000_000;

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startProviderProxy({ upstream: anvil.url, now: () => clock });
  client = createPublicClient({ transport: http(proxy.url, { retryCount: 0 }) }) as PublicClient;
});
afterEach(() => proxy.reset());
afterAll(async () => {
  await proxy?.stop();
  await anvil?.stop();
});

const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as HttpRequestError);
const head = () => client.getBlockNumber({ cacheTime: 0 });

describe('forwarding', () => {
  it('forwards single and batch requests and counts every call, per method', async () => {
    proxy.resetCounts();
    expect(await client.getChainId()).toBe(31337);
    const batched = createPublicClient({ transport: http(proxy.url, { batch: true, retryCount: 0 }) });
    const [chainId, n, balance] = await Promise.all([
      batched.getChainId(),
      batched.getBlockNumber({ cacheTime: 0 }),
      batched.getBalance({ address: privateKeyToAccount(ANVIL_KEYS[2]).address }),
    ]);
    expect([chainId, n >= 0n, balance]).toEqual([31337, true, 10n ** 22n]);
    expect(proxy.counts()).toEqual({ eth_chainId: 2, eth_blockNumber: 1, eth_getBalance: 1 });
    expect(proxy.stats()).toEqual({ requests: 2, batches: 1, calls: 4, rateLimited: 0 });
    proxy.resetCounts();
    expect(proxy.counts()).toEqual({});
  });
});

describe('rateLimit', () => {
  /** A client that records the status and Retry-After of every HTTP response it gets. */
  const watched = (retryCount = 0) => {
    const seen: Array<[number, string | null]> = [];
    const c = createPublicClient({
      transport: http(proxy.url, { retryCount, onFetchResponse: (r) => void seen.push([r.status, r.headers.get('retry-after')]) }),
    });
    return { c, seen };
  };
  const message = (e: unknown) => JSON.stringify({ code: (e as { code?: number }).code, details: (e as { details?: string }).details });

  it("answers the next N requests 429 with Retry-After and Alchemy's JSON-RPC error, then lets them through", async () => {
    proxy.resetCounts();
    proxy.rateLimit({ requests: 2, retryAfterSeconds: 3 });
    const { c, seen } = watched();
    for (let i = 0; i < 2; i++)
      expect(message(await failure(c.getBlockNumber({ cacheTime: 0 })))).toMatch(
        /"code":429.*exceeded its compute units per second capacity/,
      );
    expect(await c.getBlockNumber({ cacheTime: 0 })).toBeGreaterThanOrEqual(0n);
    expect(seen).toEqual([
      [429, '3'],
      [429, '3'],
      [200, null],
    ]);
    expect(proxy.stats().rateLimited).toBe(2);
    expect(proxy.counts().eth_blockNumber).toBe(3); // refused requests still arrive, and count
  });

  it("limits one method with Infura's body while others pass, until cleared", async () => {
    proxy.rateLimit({ methods: ['eth_getLogs'], provider: 'infura' });
    expect(message(await failure(client.getLogs({ fromBlock: 0n, toBlock: 0n })))).toMatch(
      /"code":-32005.*project ID request rate exceeded/,
    );
    expect(await head()).toBeGreaterThanOrEqual(0n);
    proxy.clearRateLimits();
    expect(await client.getLogs({ fromBlock: 0n, toBlock: 0n })).toEqual([]);
  });

  it("limits for a time on the proxy's clock, with QuickNode's body", async () => {
    proxy.rateLimit({ forMs: 10_000, provider: 'quicknode' });
    expect(message(await failure(head()))).toMatch(/"code":-32007.*request limit reached - reduce calls per second/);
    clock += 9_999;
    expect(message(await failure(head()))).toMatch(/-32007/);
    clock += 1;
    expect(await head()).toBeGreaterThanOrEqual(0n);
  });

  it('refuses a whole batch that carries a limited method, one provider error per call', async () => {
    proxy.rateLimit({ methods: ['eth_getBalance'] });
    const raw = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: [privateKeyToAccount(ANVIL_KEYS[2]).address, 'latest'] },
      ]),
    });
    expect(raw.status).toBe(429);
    expect(((await raw.json()) as Array<{ id: number; error: { code: number } }>).map((r) => [r.id, r.error.code])).toEqual([
      [1, 429],
      [2, 429],
    ]);
  });

  it('with a plain body is an HTTP error to viem, which then waits Retry-After before its retry', async () => {
    proxy.rateLimit({ requests: 1, retryAfterSeconds: 1, provider: 'plain' });
    const once = await failure(client.getBlockNumber({ cacheTime: 0 }));
    expect(once).toBeInstanceOf(HttpRequestError);
    expect([once!.status, once!.headers?.get('retry-after')]).toEqual([429, '1']);
    proxy.rateLimit({ requests: 1, retryAfterSeconds: 1, provider: 'plain' });
    const { c, seen } = watched(1);
    expect(await c.getBlockNumber({ cacheTime: 0 })).toBeGreaterThanOrEqual(0n);
    expect(seen).toEqual([
      [429, '1'],
      [200, null],
    ]);
  });
});

describe('stall', () => {
  /** Polls until `cond` holds (bounded: a stalled request reaches the proxy within a few ms, but machines are noisy). */
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(cond()).toBe(true);
  };

  it('holds a method until released while other methods pass', async () => {
    const stall = proxy.stall({ methods: ['eth_blockNumber'] });
    let settled = false;
    const stalled = head().then((n) => ((settled = true), n));
    await until(() => stall.held() === 1);
    expect(await client.getChainId()).toBe(31337);
    expect(settled).toBe(false);
    stall.release();
    expect(await stalled).toBeGreaterThanOrEqual(0n);
    expect(await head()).toBeGreaterThanOrEqual(0n); // released: no longer stalled
  });

  it('holds only the next N requests, each for the given time', async () => {
    const stall = proxy.stall({ ms: 50, requests: 1 });
    expect(await head()).toBeGreaterThanOrEqual(0n);
    expect(await head()).toBeGreaterThanOrEqual(0n);
    expect(stall.held()).toBe(1);
  });

  it("holds the node's answer to a broadcast: the client times out, yet the transaction is mined", async () => {
    const stall = proxy.stall({ methods: ['eth_sendRawTransaction'], phase: 'response' });
    const account = privateKeyToAccount(ANVIL_KEYS[3]);
    const chain = {
      id: 31337,
      name: 'anvil',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [proxy.url] } },
    };
    const wallet = createWalletClient({ account, chain, transport: http(proxy.url, { retryCount: 0, timeout: 500 }) });
    const direct = createPublicClient({ transport: http(anvil.url) });
    const nonce = await direct.getTransactionCount({ address: account.address });
    const err = await failure(wallet.sendTransaction({ to: account.address, value: 1n }));
    expect((err as Error).name).toMatch(/TimeoutError|TransactionExecutionError/);
    await until(() => stall.held() === 1);
    expect(await direct.getTransactionCount({ address: account.address })).toBe(nonce + 1);
    stall.release();
  });
});
