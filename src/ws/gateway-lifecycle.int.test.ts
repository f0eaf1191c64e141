// The market-maker WebSocket's limits and lifecycle against real service processes (src/testing/mm-gateway.ts):
// the auth deadline, heartbeat, session expiry and reconnect, connection limits, operator removal across two
// processes, both processes serving at once, and closing connections on SIGTERM.
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { MarketMakerClient, signAuthChallenge, DEFAULT_AUTH_DOMAIN } from '@contest-rfq/sdk';
import { createMarketMaker, deleteMarketMaker, getMakerPnl } from '../../generated/openapi/sdk.gen.js';
import {
  authResponse,
  challenge,
  clients,
  failure,
  OPERATOR,
  openRaw,
  registerMm,
  secrets,
  TIMINGS,
  useGateway,
  wsUrl,
} from '../testing/mm-gateway.js';
import { TEST_REDIS_URL, uniquePrefix } from '../testing/postgres.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { startServiceProcess } from '../testing/service-process.js';

const g = useGateway('mmwsl');

describe('limits and timings', () => {
  it('closes an unauthenticated connection at the deadline (4001) even while it answers pings', async () => {
    const raw = await openRaw(g.a);
    const t0 = Date.now();
    await challenge(raw);
    const { code } = await raw.closed;
    const elapsed = Date.now() - t0;
    expect(code).toBe(4001);
    expect(elapsed).toBeGreaterThan(2000);
    expect(elapsed).toBeLessThan(4000);
    expect(raw.frames.some((f) => f.type === 'ping')).toBe(true);
  });

  it('pings with a millisecond timestamp and closes with 4002 after 3 unanswered pings', async () => {
    const wallet = await registerMm();
    const client = new MarketMakerClient({ url: wsUrl(g.a), account: wallet, answerPings: false, reconnect: false });
    clients.push(client);
    const pings: number[] = [];
    client.on('frame', (f) => f.type === 'ping' && pings.push(f.timestamp));
    const closed = new Promise<{ code: number }>((r) => client.once('close', r));
    secrets.push((await client.start().waitForSession()).token);
    const { code } = await closed;
    expect(code).toBe(4002);
    expect(pings.length).toBe(3);
    for (const p of pings) expect(Math.abs(p - Date.now())).toBeLessThan(5000);
  });

  it('sends AUTH_EXPIRED at session expiry then closes 4003; the example client reconnects with a fresh challenge', async () => {
    const wallet = await registerMm();
    const client = new MarketMakerClient({ url: wsUrl(g.b), account: wallet, minBackoffMs: 50 });
    clients.push(client);
    const expired: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    const closes: number[] = [];
    client.on('expired', (f) => expired.push(f));
    client.on('close', ({ code }) => closes.push(code));
    const first = await client.start().waitForSession();
    secrets.push(first.token);
    const second = await client.waitForSession(6000, { fresh: true });
    secrets.push(second.token);
    expect(second.token).not.toBe(first.token);
    expect(expired[0].expired_at_ms).toBeGreaterThanOrEqual(first.expiresAt * 1000);
    expect(expired[0].expired_at_ms).toBeLessThan(first.expiresAt * 1000 + 1000);
    expect(closes[0]).toBe(4003);
    const r = await sent(getMakerPnl({ client: sdkClient(g.b.baseUrl, first.token) }));
    expect(r.status).toBe(401);
    expect(r.error?.code).toBe('INVALID_SESSION');
    await client.stop();
  });

  it('refuses the upgrade with 429 beyond MM_MAX_CONNECTIONS_PER_IP and 404 on other paths', async () => {
    const open = await Promise.all([openRaw(g.b), openRaw(g.b), openRaw(g.b)]);
    const status = (url: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(url);
        ws.once('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.once('open', () => reject(new Error('opened')));
        ws.once('error', () => undefined);
      });
    expect(await status(wsUrl(g.b))).toBe(429);
    expect(await status(wsUrl(g.a, '/v1/other'))).toBe(404);
    for (const r of open) r.ws.close();
    await Promise.all(open.map((r) => r.closed));
    await new Promise((r) => setTimeout(r, 100));
    const again = await openRaw(g.b);
    again.ws.close();
  });
});

describe('operator removal and several processes', () => {
  it('removal ends the sessions on both processes (AUTH_EXPIRED, 4004) and the token gets 401; the SDK client gives up', async () => {
    const wallet = await registerMm();
    const onA = new MarketMakerClient({ url: wsUrl(g.a), account: wallet, minBackoffMs: 50 }); // would reconnect, but must not
    const reconnects: number[] = [];
    onA.on('reconnecting', ({ attempt }) => reconnects.push(attempt));
    const goneA = new Promise<Error>((resolve) => onA.once('gave_up', resolve));
    const onB = new MarketMakerClient({ url: wsUrl(g.b), account: wallet, reconnect: false });
    clients.push(onA, onB);
    const [sa, sb] = await Promise.all([onA.start().waitForSession(), onB.start().waitForSession()]);
    secrets.push(sa.token, sb.token);
    expect(sa.token).not.toBe(sb.token);
    const ends = [onA, onB].map(
      (c) =>
        new Promise<{ code: number; expired: boolean }>((resolve) => {
          let expired = false;
          c.on('expired', () => (expired = true));
          c.once('close', ({ code }) => resolve({ code, expired }));
        }),
    );
    const t0 = Date.now();
    const del = await sent(
      deleteMarketMaker({ client: sdkClient(g.a.baseUrl, OPERATOR), path: { wallet_address: wallet.address.toLowerCase() } }),
    );
    expect(del.status).toBe(204);
    expect(await Promise.all(ends)).toEqual([
      { code: 4004, expired: true },
      { code: 4004, expired: true },
    ]);
    expect(Date.now() - t0).toBeLessThan(1500); // B learns of it on its next 250 ms tick
    expect(await goneA).toMatchObject({
      name: 'MarketMakerGoneError',
      code: 'removed',
      message: expect.stringContaining('POST /v1/admin/market-makers'),
    });
    await expect(onA.waitForSession(1000, { fresh: true })).rejects.toBe(onA.goneError);
    await new Promise((r) => setTimeout(r, 300));
    expect(reconnects).toEqual([]);
    for (const t of [sa.token, sb.token]) {
      const r = await sent(getMakerPnl({ client: sdkClient(g.b.baseUrl, t) }));
      expect(r.status).toBe(401);
      expect(r.error?.code).toBe('INVALID_SESSION');
    }
    // a removed wallet can no longer authenticate; deleting again is 404; registering again works
    const raw = await openRaw(g.b);
    const c = await challenge(raw);
    expect(
      await authResponse(raw, {
        wallet_address: wallet.address,
        signature: await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp),
      }),
    ).toEqual(failure('unknown_market_maker'));
    raw.ws.close();
    const stranger = new MarketMakerClient({ url: wsUrl(g.a), account: wallet, minBackoffMs: 50 });
    clients.push(stranger);
    const closes: number[] = [];
    stranger.on('close', ({ code }) => closes.push(code));
    await expect(stranger.start().waitForSession()).rejects.toMatchObject({ name: 'MarketMakerGoneError', code: 'unknown_market_maker' });
    await new Promise((r) => setTimeout(r, 300));
    expect(closes).toEqual([1000]); // closed once, no retry
    const operator = sdkClient(g.a.baseUrl, OPERATOR);
    expect((await sent(deleteMarketMaker({ client: operator, path: { wallet_address: wallet.address } }))).status).toBe(404);
    await registerMm(wallet, g.b);
    const dup = await sent(createMarketMaker({ client: operator, body: { wallet_address: wallet.address, name: 'again' } }));
    expect(dup.status).toBe(409);
    expect(dup.error?.code).toBe('MARKET_MAKER_EXISTS');
  });

  it('both processes serve connections at once', async () => {
    const wallets = await Promise.all([registerMm(), registerMm()]);
    const cs = [
      new MarketMakerClient({ url: wsUrl(g.a), account: wallets[0]! }),
      new MarketMakerClient({ url: wsUrl(g.b), account: wallets[1]! }),
    ];
    clients.push(...cs);
    const sessions = await Promise.all(cs.map((c) => c.start().waitForSession()));
    secrets.push(...sessions.map((s) => s.token));
    for (const [i, s] of sessions.entries()) {
      const r = await sent(getMakerPnl({ client: sdkClient((i === 0 ? g.b : g.a).baseUrl, s.token) }));
      expect(r.data?.wallet_address).toBe(wallets[i]!.address);
    }
    await Promise.all(cs.map((c) => c.stop()));
  });
});

describe('shutdown', () => {
  it('closes market-maker connections with 1001 on SIGTERM', async () => {
    const svc = await startServiceProcess({
      env: {
        NODE_ENV: 'test',
        DATABASE_URL: g.db.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: uniquePrefix('mmwsc'),
        OPERATOR_TOKEN: OPERATOR,
        ...TIMINGS,
        MM_AUTH_TIMEOUT_MS: '10000',
      },
      args: ['--role=api'],
    });
    try {
      const raw = await openRaw(svc);
      const exit = svc.stop();
      expect((await raw.closed).code).toBe(1001);
      expect(await exit).toBe(0);
    } finally {
      await svc.stop();
    }
  });
});
