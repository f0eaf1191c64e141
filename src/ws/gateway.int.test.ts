// The market-maker WebSocket against real service processes (PostgreSQL + Redis), with short timings:
// the handshake, every documented failure, bounds, heartbeat, expiry, removal, two processes on one DB.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { call, createTestPrivy, randomWallet, type TestPrivy, type TestWallet } from '../testing/identity.js';
import { MarketMakerClient, signAuthChallenge, DEFAULT_AUTH_DOMAIN } from '@contest-rfq/sdk';

const OPERATOR = `ws-test-operator-${randomBytes(8).toString('hex')}`;
const TIMINGS = { MM_CHALLENGE_TTL_MS: '600', MM_AUTH_TIMEOUT_MS: '2500', MM_HEARTBEAT_INTERVAL_MS: '250', MM_MAX_MISSED_PONGS: '3' };

let db: TestDatabase;
let a: ServiceProcess; // long sessions
let b: ServiceProcess; // 2 s sessions, 3 connections per IP, same database
let sql: pg.Client;
let privy: TestPrivy;
const secrets: string[] = [];
const clients: MarketMakerClient[] = [];
const sockets: WebSocket[] = [];

beforeAll(async () => {
  db = await createTestDatabase('mmws');
  privy = await createTestPrivy();
  const common = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    OPERATOR_TOKEN: OPERATOR,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'debug',
    ...privy.env,
    ...TIMINGS,
  };
  a = await startServiceProcess({ env: { ...common, QUEUE_PREFIX: uniquePrefix('mmwsa'), MM_SESSION_TTL_MS: '600000' }, args: ['--role=api'] });
  b = await startServiceProcess({
    env: { ...common, QUEUE_PREFIX: uniquePrefix('mmwsb'), MM_SESSION_TTL_MS: '2000', MM_MAX_CONNECTIONS_PER_IP: '3' },
    args: ['--role=api'],
  });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.stop()));
  for (const s of sockets) s.terminate();
  await sql?.end();
  const codes = await Promise.all([a?.stop(), b?.stop()]);
  await db?.drop();
  expect(codes).toEqual([0, 0]);
  for (const svc of [a, b]) {
    const out = svc.rawOutput.join('\n');
    for (const s of secrets) expect(out).not.toContain(s);
    expect(svc.logs.filter((l) => typeof l.level === 'number' && l.level >= 50)).toEqual([]);
  }
});

const wsUrl = (svc: ServiceProcess, path = '/v1/ws') => `ws://127.0.0.1:${svc.port}${path}`;
const sessionCount = async () => Number((await sql.query('select count(*)::int as n from sessions where kind = $1', ['market_maker'])).rows[0].n);

async function registerMm(wallet: TestWallet = randomWallet(), svc = a): Promise<TestWallet> {
  const res = await call(svc.baseUrl, 'POST /v1/admin/market-makers', {
    token: OPERATOR,
    body: { wallet_address: wallet.address.toLowerCase(), name: 'Test MM' },
  });
  expect(res.status).toBe(201);
  expect(res.body.wallet_address).toBe(wallet.address);
  return wallet;
}

/** A raw connection: every server frame is checked against the AsyncAPI document. */
interface Raw {
  ws: WebSocket;
  frames: any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  send(v: unknown): void;
  next(type?: string, timeoutMs?: number): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  closed: Promise<{ code: number; reason: string }>;
  answerPings: boolean;
}

async function openRaw(svc: ServiceProcess, { answerPings = true } = {}): Promise<Raw> {
  const ws = new WebSocket(wsUrl(svc));
  sockets.push(ws);
  const frames: unknown[] = [];
  let cursor = 0;
  const waiters: Array<() => void> = [];
  const raw: Raw = {
    ws,
    frames,
    answerPings,
    send: (v) => ws.send(typeof v === 'string' || Buffer.isBuffer(v) ? v : JSON.stringify(v)),
    async next(type, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (cursor < frames.length) {
          const f = frames[cursor++] as { type: string };
          if (f.type === 'ping' && type !== 'ping') continue;
          if (!type || f.type === type) return f;
          throw new Error(`expected ${type}, got ${JSON.stringify(f)}`);
        }
        if (Date.now() > deadline) throw new Error(`no ${type ?? 'frame'} within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
    closed: new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))),
  };
  ws.on('message', (data) => {
    const f = JSON.parse(data.toString());
    if (!validateServerMessage(f))
      throw new Error(`frame breaks spec/asyncapi.yaml: ${data.toString()} ${JSON.stringify(validateServerMessage.errors)}`);
    frames.push(f);
    if (f.type === 'ping' && raw.answerPings) ws.send(JSON.stringify({ type: 'pong' }));
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return raw;
}

async function challenge(raw: Raw): Promise<{ nonce: string; timestamp: number }> {
  raw.send({ type: 'auth' });
  return raw.next('auth_challenge');
}

async function authResponse(raw: Raw, body: Record<string, unknown>) {
  raw.send({ type: 'auth_response', ...body });
  return raw.next('auth_result');
}

const failure = (error: string) => ({ type: 'auth_result', success: false, error, session_token: null, expires_at: null });

describe('handshake', () => {
  it('succeeds with the example client; the token works on GET /v1/mm/pnl and is 403 on a user route', async () => {
    const wallet = await registerMm();
    const before = await sessionCount();
    const client = new MarketMakerClient({ url: wsUrl(a), account: wallet });
    clients.push(client);
    client.on('frame', (f) => expect(validateServerMessage(f), JSON.stringify(f)).toBe(true));
    const s = await client.start().waitForSession();
    secrets.push(s.token);
    expect(s.token).toMatch(/^mm_[A-Za-z0-9_-]{43}$/);
    expect(s.expiresAt).toBeGreaterThan(Date.now() / 1000 + 590);
    expect(await sessionCount()).toBe(before + 1);
    const pnl = await call(a.baseUrl, 'GET /v1/mm/pnl', { token: s.token });
    expect(pnl.status).toBe(200);
    expect(pnl.body).toMatchObject({ wallet_address: wallet.address, realized_pnl_micros: '0', trade_count: 0 });
    expect(Math.abs(pnl.body.as_of_ms - Date.now())).toBeLessThan(10_000);
    expect((await call(b.baseUrl, 'GET /v1/mm/pnl', { token: s.token })).status).toBe(200); // any process
    const user = await call(a.baseUrl, 'GET /v1/user/preferences', { token: s.token });
    expect(user.status).toBe(403);
    expect(user.body.code).toBe('FORBIDDEN');
    // a user token is refused on the market-maker route
    const userWallet = randomWallet();
    const us = await call(a.baseUrl, 'POST /v1/auth/session', {
      body: { privy_token: await privy.token(`did:privy:${randomBytes(8).toString('hex')}`, userWallet.address) },
    });
    expect((await call(a.baseUrl, 'GET /v1/mm/pnl', { token: us.body.session_token })).status).toBe(403);
    // the connection keeps answering pings and is not closed by the auth deadline
    await new Promise((r) => setTimeout(r, 3000));
    expect(client.readyState).toBe(WebSocket.OPEN);
    await client.stop();
  });

  it('accepts checksum and lowercase wallets, v 27/28 and 0/1, with and without 0x', async () => {
    const wallet = await registerMm();
    for (const form of ['checksum+0x', 'lower+bare', 'v01+0x', 'v01+bare+lower'] as const) {
      const raw = await openRaw(a);
      const c = await challenge(raw);
      let sig: string = await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp);
      secrets.push(sig.slice(2));
      if (form.startsWith('v01')) sig = sig.slice(0, -2) + (parseInt(sig.slice(-2), 16) - 27).toString(16).padStart(2, '0');
      if (form.includes('bare')) sig = sig.slice(2);
      const address = form.includes('lower') ? wallet.address.toLowerCase() : wallet.address;
      const res = await authResponse(raw, { wallet_address: address, signature: sig });
      expect(res, form).toMatchObject({ success: true, error: null });
      secrets.push(res.session_token);
      raw.send({ type: 'auth' });
      expect(await raw.next('auth_result')).toEqual(failure('already_authenticated'));
      expect(await authResponse(raw, { wallet_address: address, signature: sig })).toEqual(failure('already_authenticated'));
      raw.ws.close();
    }
  });
});

describe('bad input and attacks: the documented failure, no session, the server unaffected', () => {
  it('bad signature, another domain, unknown wallet, malformed checksum, v out of range', async () => {
    const wallet = await registerMm();
    const stranger = randomWallet();
    const before = await sessionCount();
    const raw = await openRaw(a);
    let c = await challenge(raw);
    const other = await signAuthChallenge(randomWallet(), DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp);
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: other })).toEqual(failure('invalid_signature'));
    c = await challenge(raw);
    const otherDomain = await signAuthChallenge(wallet, 'another-service market-maker v1 xyz', c.nonce, c.timestamp);
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: otherDomain })).toEqual(failure('invalid_signature'));
    c = await challenge(raw);
    const unknown = await signAuthChallenge(stranger, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp);
    expect(await authResponse(raw, { wallet_address: stranger.address, signature: unknown })).toEqual(failure('unknown_market_maker'));
    c = await challenge(raw);
    const good = await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp);
    const badChecksum =
      wallet.address.slice(0, 2) +
      [...wallet.address.slice(2)].map((ch) => (/[a-f]/.test(ch) ? ch.toUpperCase() : /[A-F]/.test(ch) ? ch.toLowerCase() : ch)).join('');
    expect(await authResponse(raw, { wallet_address: badChecksum, signature: good })).toEqual(failure('malformed_message'));
    c = await challenge(raw);
    const vBad = (await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp)).slice(0, -2) + '1d';
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: vBad })).toEqual(failure('invalid_signature'));
    // signing the hex text instead of the bytes
    c = await challenge(raw);
    const text = await wallet.signMessage({ message: c.nonce });
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: text })).toEqual(failure('invalid_signature'));
    expect(await sessionCount()).toBe(before);
    raw.ws.close();
  });

  it('a reused nonce, a response before auth, a nonce from another connection, an expired challenge', async () => {
    const wallet = await registerMm();
    const before = await sessionCount();
    const raw = await openRaw(a);
    const other = await openRaw(a);
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: '00'.repeat(65) })).toEqual(failure('no_challenge'));
    // the challenge of `other` signed and presented on `raw` (which has a challenge of its own)
    const foreign = await challenge(other);
    await challenge(raw);
    const foreignSig = await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, foreign.nonce, foreign.timestamp);
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: foreignSig })).toEqual(failure('invalid_signature'));
    // consumed by the first answer, even a failed one
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: foreignSig })).toEqual(failure('no_challenge'));
    // and `other`'s challenge is consumed by a wrong answer: the right one then finds none
    expect(await authResponse(other, { wallet_address: wallet.address, signature: '11'.repeat(65) })).toEqual(failure('invalid_signature'));
    expect(await authResponse(other, { wallet_address: wallet.address, signature: foreignSig })).toEqual(failure('no_challenge'));
    // expired (TTL 600 ms)
    const c = await challenge(raw);
    const sig = await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp);
    await new Promise((r) => setTimeout(r, 800));
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: sig })).toEqual(failure('challenge_expired'));
    // a new auth replaces the outstanding challenge
    const c1 = await challenge(raw);
    const c2 = await challenge(raw);
    expect(c2.nonce).not.toBe(c1.nonce);
    const sig1 = await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c1.nonce, c1.timestamp);
    expect(await authResponse(raw, { wallet_address: wallet.address, signature: sig1 })).toEqual(failure('invalid_signature'));
    expect(await sessionCount()).toBe(before);
    raw.ws.close();
    other.ws.close();
  });

  it('wrong types and unknown frames get an error frame and the connection survives', async () => {
    const wallet = await registerMm();
    const raw = await openRaw(a);
    const cases: Array<[unknown, string]> = [
      ['not json', 'malformed_message'],
      ['[1,2]', 'malformed_message'],
      ['"auth"', 'malformed_message'],
      [{ no: 'type' }, 'malformed_message'],
      [{ type: 5 }, 'malformed_message'],
      [{ type: 'auth', extra: true }, 'malformed_message'],
      [{ type: 'pong', timestamp: 'now' }, 'malformed_message'],
      [{ type: 'order' }, 'unknown_message_type'],
      [{ type: 'ping', timestamp: 1 }, 'unknown_message_type'],
      [{ type: 'auth_result' }, 'unknown_message_type'],
    ];
    for (const [frame, code] of cases) {
      raw.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
      expect(await raw.next('error'), JSON.stringify(frame)).toMatchObject({ type: 'error', code });
    }
    raw.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await raw.next('error')).toMatchObject({ code: 'malformed_message' });
    // auth_response field errors are auth_result failures, after the challenge check
    raw.send({ type: 'auth_response', wallet_address: 123, signature: true });
    expect(await raw.next('auth_result')).toEqual(failure('no_challenge'));
    await challenge(raw);
    raw.send({ type: 'auth_response', wallet_address: 123, signature: true });
    expect(await raw.next('auth_result')).toEqual(failure('malformed_message'));
    await challenge(raw);
    raw.send({ type: 'auth_response', wallet_address: wallet.address, signature: 'ab'.repeat(64) });
    expect(await raw.next('auth_result')).toEqual(failure('malformed_message'));
    // still usable
    const c = await challenge(raw);
    const ok = await authResponse(raw, {
      wallet_address: wallet.address,
      signature: await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp),
    });
    expect(ok.success).toBe(true);
    secrets.push(ok.session_token);
    raw.ws.close();
  });

  it('a 1 MB frame closes the connection with 1009; the service carries on', async () => {
    const raw = await openRaw(a);
    raw.send(JSON.stringify({ type: 'auth', pad: 'x'.repeat(1024 * 1024) }));
    expect((await raw.closed).code).toBe(1009);
    const again = await openRaw(a);
    await challenge(again);
    expect((await call(a.baseUrl, 'GET /healthz')).status).toBeLessThan(500);
    again.ws.close();
  });

  it('a flood of auth attempts: each answered, then the connection is closed (1008); others unaffected', async () => {
    const wallet = await registerMm();
    const before = await sessionCount();
    // one attempt after another: 10 are answered, the 11th closes the connection
    const raw = await openRaw(a);
    for (let i = 0; i < 10; i++) {
      await challenge(raw);
      expect(await authResponse(raw, { wallet_address: wallet.address, signature: '22'.repeat(65) })).toEqual(failure('invalid_signature'));
    }
    await challenge(raw);
    raw.send({ type: 'auth_response', wallet_address: wallet.address, signature: '22'.repeat(65) });
    expect((await raw.closed).code).toBe(1008);
    // all at once: the frame bounds close it sooner (src/ws/abuse.int.test.ts), each answer still a failure
    const burst = await openRaw(a);
    for (let i = 0; i < 200; i++) {
      burst.send({ type: 'auth' });
      burst.send({ type: 'auth_response', wallet_address: wallet.address, signature: '22'.repeat(65) });
    }
    expect((await burst.closed).code).toBe(1008);
    const results = burst.frames.filter((f) => f.type === 'auth_result');
    expect(results.length).toBeLessThanOrEqual(10);
    for (const r of results) expect(r).toEqual(failure('invalid_signature'));
    expect(await sessionCount()).toBe(before);
    const client = new MarketMakerClient({ url: wsUrl(a), account: wallet });
    clients.push(client);
    secrets.push((await client.start().waitForSession()).token);
    await client.stop();
  });
});

describe('limits and timings', () => {
  it('closes an unauthenticated connection at the deadline (4001) even while it answers pings', async () => {
    const raw = await openRaw(a);
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
    const client = new MarketMakerClient({ url: wsUrl(a), account: wallet, answerPings: false, reconnect: false });
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
    const client = new MarketMakerClient({ url: wsUrl(b), account: wallet, minBackoffMs: 50 });
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
    const r = await call(b.baseUrl, 'GET /v1/mm/pnl', { token: first.token });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('INVALID_SESSION');
    await client.stop();
  });

  it('refuses the upgrade with 429 beyond MM_MAX_CONNECTIONS_PER_IP and 404 on other paths', async () => {
    const open = await Promise.all([openRaw(b), openRaw(b), openRaw(b)]);
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
    expect(await status(wsUrl(b))).toBe(429);
    expect(await status(wsUrl(a, '/v1/other'))).toBe(404);
    for (const r of open) r.ws.close();
    await Promise.all(open.map((r) => r.closed));
    await new Promise((r) => setTimeout(r, 100));
    const again = await openRaw(b);
    again.ws.close();
  });
});

describe('operator removal and several processes', () => {
  it('removal ends the sessions on both processes (AUTH_EXPIRED, 4004) and the token gets 401; the SDK client gives up', async () => {
    const wallet = await registerMm();
    const onA = new MarketMakerClient({ url: wsUrl(a), account: wallet, minBackoffMs: 50 }); // would reconnect, but must not
    const reconnects: number[] = [];
    onA.on('reconnecting', ({ attempt }) => reconnects.push(attempt));
    const goneA = new Promise<Error>((resolve) => onA.once('gave_up', resolve));
    const onB = new MarketMakerClient({ url: wsUrl(b), account: wallet, reconnect: false });
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
    const del = await call(a.baseUrl, `DELETE /v1/admin/market-makers/${wallet.address.toLowerCase()}`, { token: OPERATOR });
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
      const r = await call(b.baseUrl, 'GET /v1/mm/pnl', { token: t });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('INVALID_SESSION');
    }
    // a removed wallet can no longer authenticate; deleting again is 404; registering again works
    const raw = await openRaw(b);
    const c = await challenge(raw);
    expect(
      await authResponse(raw, {
        wallet_address: wallet.address,
        signature: await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp),
      }),
    ).toEqual(failure('unknown_market_maker'));
    raw.ws.close();
    const stranger = new MarketMakerClient({ url: wsUrl(a), account: wallet, minBackoffMs: 50 });
    clients.push(stranger);
    const closes: number[] = [];
    stranger.on('close', ({ code }) => closes.push(code));
    await expect(stranger.start().waitForSession()).rejects.toMatchObject({ name: 'MarketMakerGoneError', code: 'unknown_market_maker' });
    await new Promise((r) => setTimeout(r, 300));
    expect(closes).toEqual([1000]); // closed once, no retry
    expect((await call(a.baseUrl, `DELETE /v1/admin/market-makers/${wallet.address}`, { token: OPERATOR })).status).toBe(404);
    await registerMm(wallet, b);
    const dup = await call(a.baseUrl, 'POST /v1/admin/market-makers', { token: OPERATOR, body: { wallet_address: wallet.address, name: 'again' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('MARKET_MAKER_EXISTS');
  });

  it('both processes serve connections at once', async () => {
    const wallets = await Promise.all([registerMm(), registerMm()]);
    const cs = [new MarketMakerClient({ url: wsUrl(a), account: wallets[0]! }), new MarketMakerClient({ url: wsUrl(b), account: wallets[1]! })];
    clients.push(...cs);
    const sessions = await Promise.all(cs.map((c) => c.start().waitForSession()));
    secrets.push(...sessions.map((s) => s.token));
    for (const [i, s] of sessions.entries()) {
      const r = await call((i === 0 ? b : a).baseUrl, 'GET /v1/mm/pnl', { token: s.token });
      expect(r.body.wallet_address).toBe(wallets[i]!.address);
    }
    await Promise.all(cs.map((c) => c.stop()));
  });
});

describe('shutdown', () => {
  it('closes market-maker connections with 1001 on SIGTERM', async () => {
    const svc = await startServiceProcess({
      env: {
        NODE_ENV: 'test',
        DATABASE_URL: db.url,
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

// keep the Hex import meaningful for readers: signatures are 0x-prefixed hex
export type _Sig = Hex;
