// Abuse of the market-maker WebSocket against a real service process (issue 17 items 1 and 3): a frame
// flood from one connection must not stall the process (measured as /healthz latency during the flood)
// and is closed 1008; unauthenticated connections have their own small per-address cap.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMarketMaker } from '../../generated/openapi/sdk.gen.js';
import { randomWallet, type TestWallet } from '../testing/identity.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { startTestService, type TestService } from '../testing/test-service.js';
import { signAuthChallenge, DEFAULT_AUTH_DOMAIN } from '@contest-rfq/sdk';

let t: TestService;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  t = await startTestService('mmabuse', {
    MM_MAX_CONNECTIONS_PER_IP: '6',
    MM_MAX_UNAUTHENTICATED_PER_IP: '3',
    MM_AUTH_TIMEOUT_MS: '20000',
  });
});

afterAll(async () => {
  for (const s of sockets) s.terminate();
  await t?.stop();
});

const wsUrl = () => `ws://127.0.0.1:${t.svc.port}/v1/ws`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Conn {
  ws: WebSocket;
  frames: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  closed: Promise<{ code: number; reason: string }>;
  next(type: string, timeoutMs?: number): Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function open(): Promise<Conn> {
  const ws = new WebSocket(wsUrl());
  sockets.push(ws);
  const frames: Conn['frames'] = [];
  ws.on('message', (d) => {
    const f = JSON.parse(d.toString());
    frames.push(f);
    if (f.type === 'ping') ws.send('{"type":"pong"}');
  });
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.once('close', (code, reason) => r({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let cursor = 0;
  return {
    ws,
    frames,
    closed,
    async next(type, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        while (cursor < frames.length) {
          const f = frames[cursor++]!;
          if (f.type === type) return f;
        }
        if (Date.now() > until) throw new Error(`no ${type} within ${timeoutMs} ms`);
        await sleep(10);
      }
    },
  };
}

/** Status of an upgrade that is refused before the handshake (or 101 when it opens). */
const upgradeStatus = () =>
  new Promise<number>((resolve) => {
    const ws = new WebSocket(wsUrl());
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      sockets.push(ws);
      resolve(101);
    });
    ws.once('error', () => undefined);
  });

async function authenticate(c: Conn, wallet: TestWallet) {
  c.ws.send(JSON.stringify({ type: 'auth' }));
  const ch = await c.next('auth_challenge');
  c.ws.send(
    JSON.stringify({
      type: 'auth_response',
      wallet_address: wallet.address,
      signature: await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, ch.nonce, ch.timestamp),
    }),
  );
  const res = await c.next('auth_result');
  expect(res.success).toBe(true);
}

async function registeredWallet(): Promise<TestWallet> {
  const wallet = randomWallet();
  const res = await sent(
    createMarketMaker({ client: sdkClient(t.svc.baseUrl, t.operatorToken), body: { wallet_address: wallet.address, name: 'Abuse MM' } }),
  );
  expect(res.status).toBe(201);
  return wallet;
}

/**
 * Polls /healthz one request after another while `during` runs and for `tailMs` after it, and returns
 * every latency (ms). A request that does not answer in 15 s counts as 15 s.
 */
async function healthLatencies(during: () => Promise<unknown>, tailMs = 1500): Promise<number[]> {
  for (let i = 0; i < 5; i++) await (await fetch(`${t.svc.baseUrl}/healthz`)).arrayBuffer(); // warm (first requests are slow in any process)
  const latencies: number[] = [];
  let done = false;
  const poller = (async () => {
    while (!done) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${t.svc.baseUrl}/healthz`, { signal: AbortSignal.timeout(15_000) });
        await res.arrayBuffer();
        expect(res.status).toBe(200);
      } catch {
        /* counted as the timeout */
      }
      latencies.push(performance.now() - t0);
      await sleep(10);
    }
  })();
  await sleep(100);
  try {
    await during();
    await sleep(tailMs);
  } finally {
    done = true;
    await poller;
  }
  return latencies;
}

/** CPU time (user + system, ms) the service process used so far, from /proc (Linux). */
function cpuMs(): number {
  const fields = readFileSync(`/proc/${t.svc.proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const summary = (xs: number[]) => ({
  n: xs.length,
  p50_ms: +p(xs, 0.5).toFixed(1),
  p95_ms: +p(xs, 0.95).toFixed(1),
  p99_ms: +p(xs, 0.99).toFixed(1),
  max_ms: +Math.max(...xs).toFixed(1),
});

/**
 * Writes `n` text frames at once to the connection's socket, prebuilt (masked with a zero key, as a client
 * must), so that building them costs this test process nothing while it measures; resolves once written.
 */
async function flood(c: Conn, text: string, n: number) {
  const payload = Buffer.from(text);
  expect(payload.length).toBeLessThan(126);
  const frame = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
  const socket = (c.ws as unknown as { _socket: import('node:net').Socket })._socket;
  await new Promise<void>((resolve) => socket.write(Buffer.concat(Array.from({ length: n }, () => frame)), () => resolve()));
}

describe('a frame flood from one connection', () => {
  it('40,000 non-JSON frames before authentication: /healthz stays fast, the connection is closed 1008', async () => {
    const c = await open();
    let closedAtMs = 0;
    let code = 0;
    const cpu0 = cpuMs();
    const latencies = await healthLatencies(async () => {
      const t0 = Date.now();
      await flood(c, 'garbage', 40_000);
      ({ code } = await Promise.race([c.closed, sleep(20_000).then(() => ({ code: -1, reason: 'still open after 20 s' }))]));
      closedAtMs = Date.now() - t0;
    });
    const s = summary(latencies);
    console.log(
      `unauthenticated flood of 40,000 bad frames: close ${code} after ${closedAtMs} ms; service CPU ${cpuMs() - cpu0} ms; ` +
        `/healthz during it ${JSON.stringify(s)}; error frames received ${c.frames.length}`,
    );
    expect(code).toBe(1008);
    expect(s.p95_ms).toBeLessThan(500);
    expect(s.max_ms).toBeLessThan(2000); // before the fix: every request during the flood waited 10-15 s
    expect(c.frames.length).toBeLessThan(100); // a handful answered, not 40,000
  });

  it('an authenticated connection flooding 40,000 frames is closed 1008 (frame rate / inbound queue); /healthz stays fast', async () => {
    const wallet = await registeredWallet();
    const c = await open();
    await authenticate(c, wallet);
    let code = 0;
    const cpu0 = cpuMs();
    const latencies = await healthLatencies(async () => {
      await flood(c, '{"type":"nope"}', 40_000);
      ({ code } = await Promise.race([c.closed, sleep(20_000).then(() => ({ code: -1, reason: '' }))]));
    });
    const s = summary(latencies);
    console.log(
      `authenticated flood of 40,000 frames: close ${code}; service CPU ${cpuMs() - cpu0} ms; /healthz during it ${JSON.stringify(s)}; frames answered ${c.frames.length}`,
    );
    expect(code).toBe(1008);
    expect(s.p95_ms).toBeLessThan(500);
    expect(s.max_ms).toBeLessThan(2000);
    // the same wallet connects again at once: only the flooding connection was closed
    const again = await open();
    await authenticate(again, wallet);
    again.ws.close();
  });
});

describe('unauthenticated connections', () => {
  it('have their own cap per address (429 at upgrade) below the total; authenticating frees the slot', async () => {
    const wallet = await registeredWallet();
    const unauth = await Promise.all([open(), open(), open()]);
    expect(await upgradeStatus()).toBe(429); // 3 unauthenticated: the 4th is refused, 3 slots of 6 are left
    await authenticate(unauth[0]!, wallet);
    const fourth = await open(); // one of the 3 authenticated: room for one more unauthenticated
    expect(await upgradeStatus()).toBe(429);
    await authenticate(fourth, wallet);
    await authenticate(unauth[1]!, wallet);
    const more = await Promise.all([open(), open()]);
    for (const m of more) await authenticate(m, wallet);
    // 5 authenticated + 1 unauthenticated = the total of 6: refused whatever the state
    expect(await upgradeStatus()).toBe(429);
    for (const c of [...unauth, fourth, ...more]) c.ws.close();
    await Promise.all([...unauth, fourth, ...more].map((c) => c.closed));
    await sleep(100);
    expect(await upgradeStatus()).toBe(101);
  });

  it('get only a handful of frames before authenticating (closed 1008), and can still authenticate within it', async () => {
    const c = await open();
    for (let i = 0; i < 100; i++) c.ws.send(JSON.stringify({ type: 'subscribe', i }));
    const { code, reason } = await c.closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/before authentication/);
    const answered = c.frames.filter((f) => f.type === 'error').length;
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(40);
    const wallet = await registeredWallet();
    const ok = await open();
    for (let i = 0; i < 5; i++) ok.ws.send('not json');
    await authenticate(ok, wallet);
    for (let i = 0; i < 30; i++) ok.ws.send('{"type":"pong"}'); // after authentication the budget no longer applies
    ok.ws.send(JSON.stringify({ type: 'auth' }));
    expect((await ok.next('auth_result')).error).toBe('already_authenticated');
    ok.ws.close();
  });
});
