// TRUST_PROXY behind a real reverse proxy process (src/testing/reverse-proxy.ts, which appends the peer's
// address to X-Forwarded-For as nginx does). Loopback has a whole /8: the proxy reaches the service from
// 127.0.0.1 (the one trusted address), clients reach the proxy from 127.0.0.3 and 127.0.0.4, and a client
// forging the header talks to the service directly from 127.0.0.2. Rate limits, WebSocket caps and the
// access log all follow the same client address.
import { request } from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let t: TestService;
let proxy: ServiceProcess;

beforeAll(async () => {
  t = await startTestService('trustproxy', {
    TRUST_PROXY: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '5',
    MM_MAX_CONNECTIONS_PER_IP: '10',
    MM_MAX_UNAUTHENTICATED_PER_IP: '2',
    MM_AUTH_TIMEOUT_MS: '60000',
    HTTP_MAX_CONNECTIONS_PER_IP: '4',
  });
  proxy = await startServiceProcess({ entry: 'src/testing/reverse-proxy.ts', args: ['--target', t.svc.baseUrl], env: {} });
}, 90_000);
afterAll(async () => {
  await proxy?.stop('SIGTERM');
  await t?.stop();
});

/** GET /v1/auth/wallet/nonce (a rate-limited route) from `from`, to `port`; the status. */
const nonce = (port: number, from: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path: '/v1/auth/wallet/nonce', localAddress: from, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    r.on('error', reject);
    r.end();
  });

const statuses = async (n: number, call: (i: number) => Promise<number>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await call(i));
  return out;
};

describe('TRUST_PROXY=127.0.0.1 with a reverse proxy in front', () => {
  it('two clients behind the proxy are rate-limited separately; the access log names each', async () => {
    expect(await statuses(6, () => nonce(proxy.port, '127.0.0.3'))).toEqual([200, 200, 200, 200, 200, 429]);
    // Had the proxy's address been the key, this client would be limited already.
    expect(await statuses(6, () => nonce(proxy.port, '127.0.0.4'))).toEqual([200, 200, 200, 200, 200, 429]);
    const access = t.svc.logs.filter((l) => l.msg === 'request' && l.operation_id === 'getWalletNonce');
    expect(new Set(access.map((l) => l.client_ip))).toEqual(new Set(['127.0.0.3', '127.0.0.4']));
  });

  it('a client forging X-Forwarded-For, directly or through the proxy, is still one client', async () => {
    // Directly from an untrusted peer: the header is ignored, each forged address is the same 127.0.0.2.
    const direct = await statuses(6, (i) => nonce(t.svc.port, '127.0.0.2', { 'X-Forwarded-For': `198.51.100.${i + 1}` }));
    expect(direct).toEqual([200, 200, 200, 200, 200, 429]);
    // Through the proxy: the forged entry sits beyond the address the proxy appended, and is never reached.
    const proxied = await statuses(6, (i) => nonce(proxy.port, '127.0.0.5', { 'X-Forwarded-For': `203.0.113.${i + 1}` }));
    expect(proxied).toEqual([200, 200, 200, 200, 200, 429]);
    const forged = t.svc.logs.filter((l) => l.msg === 'request' && String(l.client_ip).match(/^(198\.51\.100|203\.0\.113)\./));
    expect(forged).toEqual([]);
  });

  it('the unauthenticated WebSocket cap counts each client behind the proxy on its own', async () => {
    const open = (from: string) =>
      new Promise<{ ws?: WebSocket; status?: number }>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/v1/ws`, { localAddress: from });
        ws.once('open', () => resolve({ ws }));
        ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
        ws.once('error', () => resolve({ status: -1 }));
      });
    const opened: WebSocket[] = [];
    try {
      const a = [await open('127.0.0.6'), await open('127.0.0.6'), await open('127.0.0.6')];
      opened.push(...a.flatMap((r) => (r.ws ? [r.ws] : [])));
      expect(a.map((r) => (r.ws ? 'open' : r.status))).toEqual(['open', 'open', 429]);
      const b = await open('127.0.0.7');
      if (b.ws) opened.push(b.ws);
      expect(b.ws ? 'open' : b.status).toBe('open');
    } finally {
      for (const ws of opened) ws.terminate();
    }
  });

  it('the WebSocket caps count IPv6 clients by /56 network: a new address per connection gains nothing', async () => {
    // From the trusted 127.0.0.1, so the X-Forwarded-For entry is the client (as a proxy in front would write it).
    const open = (client: string) =>
      new Promise<{ ws?: WebSocket; status?: number }>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${t.svc.port}/v1/ws`, {
          localAddress: '127.0.0.1',
          headers: { 'X-Forwarded-For': client },
        });
        ws.once('open', () => resolve({ ws }));
        ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
        ws.once('error', () => resolve({ status: -1 }));
      });
    const opened: WebSocket[] = [];
    try {
      const same = [];
      for (const client of ['2001:db8:0:1::1', '2001:db8:0:1::2', '2001:db8:0:12::3']) same.push(await open(client)); // one /56
      opened.push(...same.flatMap((r) => (r.ws ? [r.ws] : [])));
      expect(same.map((r) => (r.ws ? 'open' : r.status))).toEqual(['open', 'open', 429]);
      const other = await open('2001:db8:0:100::1'); // the next /56
      if (other.ws) opened.push(other.ws);
      expect(other.ws ? 'open' : other.status).toBe('open');
    } finally {
      for (const ws of opened) ws.terminate();
    }
  });
});

/** Opens `n` TCP connections from `from`, then asks GET /healthz on each: which ones the service answered (the others it shed). */
async function answeredOf(n: number, from: string): Promise<boolean[]> {
  const socks: net.Socket[] = [];
  const closed = new Set<net.Socket>();
  for (let i = 0; i < n; i++) {
    const s = net.connect({ host: '127.0.0.1', port: t.svc.port, localAddress: from });
    s.on('error', () => undefined);
    s.once('close', () => closed.add(s));
    await new Promise((r) => s.once('connect', r));
    socks.push(s);
  }
  const ask = (s: net.Socket) =>
    new Promise<boolean>((resolve) => {
      if (closed.has(s) || s.destroyed) return resolve(false);
      let data = '';
      s.on('data', (b: Buffer) => {
        data += b;
        if (data.includes('\r\n\r\n')) resolve(data.startsWith('HTTP/1.1 200'));
      });
      s.once('close', () => resolve(false));
      if (!s.destroyed) s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    });
  // The newest first: once it is answered, the service has seen (and capped) every earlier connection.
  const last = await ask(socks[n - 1]!);
  const earlier = await Promise.all(socks.slice(0, -1).map(ask));
  for (const s of socks) s.destroy();
  return [...earlier, last];
}

describe('HTTP_MAX_CONNECTIONS_PER_IP=4 with TRUST_PROXY', () => {
  it('caps an untrusted address (its oldest idle connections are shed) but not the trusted proxy, which carries many clients', async () => {
    expect((await answeredOf(6, '127.0.0.2')).filter(Boolean)).toHaveLength(4);
    expect(await answeredOf(6, '127.0.0.1')).toEqual([true, true, true, true, true, true]);
  });
});
