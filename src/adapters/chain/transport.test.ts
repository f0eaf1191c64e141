// CHAIN_RPC_URL's transport (src/adapters/chain/transport.ts): several endpoints fall back in order,
// calls of one tick go as one JSON-RPC batch, a 429's Retry-After is waited for, and errors carry no URL secret.
import { createServer, type Server } from 'node:http';
import { createPublicClient } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { shortReason } from './chain.js';
import { providerFetch, retryAfterMs, rpcTransport, rpcUrls } from './transport.js';

type Handler = (body: unknown, n: number) => { status: number; body: unknown; headers?: Record<string, string> };
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A JSON-RPC endpoint answering eth_chainId 0x1 unless `handler` says otherwise; counts HTTP requests. */
async function endpoint(handler?: Handler): Promise<{ url: string; requests: unknown[]; times: number[] }> {
  const requests: unknown[] = [];
  const times: number[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text) as unknown;
      requests.push(body);
      times.push(Date.now());
      const answer = (c: { id: number }) => ({ jsonrpc: '2.0', id: c.id, result: '0x1' });
      const out = handler?.(body, requests.length) ?? {
        status: 200,
        body: Array.isArray(body) ? body.map(answer) : answer(body as { id: number }),
      };
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
      res.end(JSON.stringify(out.body));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v2/secret-key?apikey=abc`, requests, times };
}

describe('rpcTransport', () => {
  it('reads a comma-separated list', () => {
    expect(rpcUrls(' http://a/x , https://b ,,')).toEqual(['http://a/x', 'https://b']);
  });

  it('falls back to the next endpoint when one fails, and batches the calls of one tick', async () => {
    const down = await endpoint(() => ({ status: 503, body: { error: 'down' } }));
    const up = await endpoint();
    const client = createPublicClient({ transport: rpcTransport(`${down.url},${up.url}`, { timeout: 2000, retryCount: 0 }) });
    const owners = [
      '0x0000000000000000000000000000000000000001',
      '0x0000000000000000000000000000000000000002',
      '0x0000000000000000000000000000000000000003',
    ] as const;
    const balances = await Promise.all(owners.map((address) => client.getBalance({ address })));
    expect(balances).toEqual([1n, 1n, 1n]);
    expect(down.requests.length).toBeGreaterThan(0);
    expect(up.requests).toHaveLength(1); // one HTTP request: a batch of three calls
    expect(up.requests[0]).toHaveLength(3);
  });

  it("waits for a 429's Retry-After, then retries", async () => {
    const limited = await endpoint((body, n) =>
      n === 1
        ? {
            status: 429,
            body: { jsonrpc: '2.0', id: 1, error: { code: 429, message: 'Too Many Requests' } },
            headers: { 'Retry-After': '1' },
          }
        : { status: 200, body: (body as Array<{ id: number }>).map((c) => ({ jsonrpc: '2.0', id: c.id, result: '0x1' })) },
    );
    const client = createPublicClient({ transport: rpcTransport(limited.url, { timeout: 5000, retryCount: 2 }) });
    expect(await client.getBalance({ address: '0x0000000000000000000000000000000000000001' })).toBe(1n);
    expect(limited.times).toHaveLength(2);
    expect(limited.times[1]! - limited.times[0]!).toBeGreaterThanOrEqual(950);
  });

  it("an error's reason names the host only", async () => {
    const down = await endpoint(() => ({ status: 500, body: { error: 'boom' } }));
    const client = createPublicClient({ transport: rpcTransport(down.url, { timeout: 2000, retryCount: 0 }) });
    const err = await client.getChainId().catch((e: unknown) => e);
    const reason = shortReason(err as Error);
    const full = shortReason({ message: `HTTP request failed. URL: ${down.url}` });
    expect(reason).not.toContain('secret-key');
    expect(full).not.toContain('secret-key');
    expect(full).not.toContain('apikey');
    expect(full).toContain('127.0.0.1');
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it('keeps at most the limit of requests in flight', async () => {
    let open = 0;
    let most = 0;
    const base = (async () => {
      most = Math.max(most, ++open);
      await new Promise((r) => setTimeout(r, 5));
      open--;
      return new Response('{}', { status: 200 });
    }) as typeof fetch;
    const f = providerFetch(3, base);
    await Promise.all(Array.from({ length: 20 }, () => f('http://x')));
    expect(most).toBe(3);
  });
});
