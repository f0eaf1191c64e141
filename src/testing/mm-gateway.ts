// The market-maker WebSocket's integration tests (src/ws/gateway-*.int.test.ts): two real API processes on one
// database with short timings (A with long sessions, B with 2 s sessions and 3 connections per IP), raw
// connections whose every server frame is checked against spec/asyncapi.yaml, and the handshake's steps.
// After the file's tests, both processes must exit cleanly, log no error and never print a secret.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, expect } from 'vitest';
import type { MarketMakerClient } from '@contest-rfq/sdk';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import { createMarketMaker } from '../../generated/openapi/sdk.gen.js';
import { createTestPrivy, randomWallet, type TestPrivy, type TestWallet } from './identity.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from './postgres.js';
import { sdkClient, sent } from './sdk-client.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';

export const OPERATOR = `ws-test-operator-${randomBytes(8).toString('hex')}`;
export const TIMINGS = {
  MM_CHALLENGE_TTL_MS: '600',
  MM_AUTH_TIMEOUT_MS: '2500',
  MM_HEARTBEAT_INTERVAL_MS: '250',
  MM_MAX_MISSED_PONGS: '3',
};

export interface Gateway {
  db: TestDatabase;
  /** Long sessions. */
  a: ServiceProcess;
  /** 2 s sessions, 3 connections per IP, same database. */
  b: ServiceProcess;
  privy: TestPrivy;
}

let h: (Gateway & { sql: pg.Client }) | undefined;
/** Secrets a test saw: neither process may print one. */
export const secrets: string[] = [];
/** SDK clients a test started: stopped after the file's tests. */
export const clients: MarketMakerClient[] = [];
const sockets: WebSocket[] = [];

/** Starts A and B before the file's tests and checks them after; read the value inside tests only. */
export function useGateway(label: string): Gateway {
  beforeAll(async () => {
    const db = await createTestDatabase(label);
    const privy = await createTestPrivy();
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
    const a = await startServiceProcess({
      env: { ...common, QUEUE_PREFIX: uniquePrefix(`${label}a`), MM_SESSION_TTL_MS: '600000' },
      args: ['--role=api'],
    });
    const b = await startServiceProcess({
      env: { ...common, QUEUE_PREFIX: uniquePrefix(`${label}b`), MM_SESSION_TTL_MS: '2000', MM_MAX_CONNECTIONS_PER_IP: '3' },
      args: ['--role=api'],
    });
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    h = { db, a, b, privy, sql };
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.stop()));
    for (const s of sockets) s.terminate();
    await h?.sql.end();
    const codes = await Promise.all([h?.a.stop(), h?.b.stop()]);
    await h?.db.drop();
    expect(codes).toEqual([0, 0]);
    for (const svc of [h!.a, h!.b]) {
      const out = svc.rawOutput.join('\n');
      for (const s of secrets) expect(out).not.toContain(s);
      expect(svc.logs.filter((l) => typeof l.level === 'number' && l.level >= 50)).toEqual([]);
    }
  });

  return new Proxy({} as Gateway, {
    get: (_, key) => started()[key as keyof Gateway],
  });
}

function started() {
  if (!h) throw new Error('the gateway processes are not started yet');
  return h;
}

export const wsUrl = (svc: ServiceProcess, path = '/v1/ws') => `ws://127.0.0.1:${svc.port}${path}`;

export async function sessionCount(): Promise<number> {
  return Number((await started().sql.query('select count(*)::int as n from sessions where kind = $1', ['market_maker'])).rows[0].n);
}

/** Registers `wallet` as a market maker through POST /v1/admin/market-makers (lowercase, answered checksummed). */
export async function registerMm(wallet: TestWallet = randomWallet(), svc = started().a): Promise<TestWallet> {
  const res = await sent(
    createMarketMaker({
      client: sdkClient(svc.baseUrl, OPERATOR),
      body: { wallet_address: wallet.address.toLowerCase(), name: 'Test MM' },
    }),
  );
  expect(res.status).toBe(201);
  expect(res.data?.wallet_address).toBe(wallet.address);
  return wallet;
}

/** A raw connection: every server frame is checked against the AsyncAPI document. */
export interface Raw {
  ws: WebSocket;
  frames: any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  send(v: unknown): void;
  next(type?: string, timeoutMs?: number): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  closed: Promise<{ code: number; reason: string }>;
  answerPings: boolean;
}

export async function openRaw(svc: ServiceProcess, { answerPings = true } = {}): Promise<Raw> {
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

export async function challenge(raw: Raw): Promise<{ nonce: string; timestamp: number }> {
  raw.send({ type: 'auth' });
  return raw.next('auth_challenge');
}

export async function authResponse(raw: Raw, body: Record<string, unknown>) {
  raw.send({ type: 'auth_response', ...body });
  return raw.next('auth_result');
}

export const failure = (error: string) => ({ type: 'auth_result', success: false, error, session_token: null, expires_at: null });
