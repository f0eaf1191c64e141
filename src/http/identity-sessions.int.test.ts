// Privy identity-token exchange and bearer sessions, over HTTP against the real service on PostgreSQL
// and Redis (the production deployment).
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../testing/service-process.js';
import {
  createMarketMaker,
  createSession,
  getMakerPnl,
  getPreferences,
  listContests,
  logout,
  updatePreferences,
} from '../../generated/openapi/sdk.gen.js';
import { createTestPrivy, randomWallet, type TestPrivy } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let t: TestService;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;
/** Every credential this file handed to or got from the service: none may appear in its logs. */
const secrets: string[] = [];
const remember = <T extends string>(s: T): T => (secrets.push(s), s);

beforeAll(async () => {
  t = await startTestService('idsess', { SIWE_DOMAIN: 'app.test:3000', LOG_LEVEL: 'debug' });
  ({ svc, privy, sql } = t);
});

afterAll(async () => {
  await t?.stop();
});

const count = async (table: 'users' | 'sessions') => Number((await sql.query(`select count(*)::int as n from ${table}`)).rows[0].n);
const newSub = () => `did:privy:${randomBytes(10).toString('hex')}`;

async function exchange(token: string) {
  const res = await send(createSession({ client: sdkClient(svc.baseUrl), body: { privy_token: remember(token) } }));
  if (res.data) remember(res.data.session_token);
  return res;
}
const preferences = (token?: string) => send(getPreferences({ client: sdkClient(svc.baseUrl, token) }));

describe('POST /v1/auth/session', () => {
  it('returns exactly the Session object, and the same user_id for the same subject', async () => {
    const wallet = randomWallet();
    const sub = newSub();
    const before = Math.floor(Date.now() / 1000);
    const first = await exchange(await privy.token(sub, wallet.address.toLowerCase()));
    expect(first.status).toBe(200);
    expect(Object.keys(first.data ?? {}).sort()).toEqual(['address', 'expires_at', 'session_token', 'user_id']);
    expect(first.data?.address).toBe(wallet.address); // EIP-55 checksummed
    expect(first.data?.user_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.data?.session_token).toMatch(/^us_[A-Za-z0-9_-]{43}$/);
    expect(first.data?.expires_at).toBeGreaterThanOrEqual(before + 86400 - 5);
    expect(first.data?.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 86400);
    const second = await exchange(await privy.token(sub, wallet.address, { twitter: 'satoshifan' }));
    expect(second.status).toBe(200);
    expect(second.data?.user_id).toBe(first.data?.user_id);
    expect(second.data?.session_token).not.toBe(first.data?.session_token);
    const prefs = await preferences(second.data?.session_token);
    expect(prefs.status).toBe(200);
    expect(prefs.data).toMatchObject({ user_id: first.data?.user_id, x_handle: 'satoshifan', address: wallet.address, handle: null });
  });

  it('gives 20 concurrent first exchanges of one subject one user', async () => {
    const wallet = randomWallet();
    const sub = newSub();
    const tokens = await Promise.all(Array.from({ length: 20 }, () => privy.token(sub, wallet.address)));
    const results = await Promise.all(tokens.map((t) => exchange(t)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.data?.user_id)).size).toBe(1);
    expect(new Set(results.map((r) => r.data?.session_token)).size).toBe(20);
    const rows = await sql.query('select id from users where privy_sub = $1', [sub]);
    expect(rows.rows).toEqual([{ id: results[0]!.data?.user_id }]);
  });

  it('refuses every bad token with 401 INVALID_IDENTITY_TOKEN (or 422 without a wallet) and writes nothing', async () => {
    const wallet = randomWallet();
    const sub = newSub();
    const stranger = await createTestPrivy(privy.appId);
    const good = await privy.token(sub, wallet.address);
    const [h, p, s] = good.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const cases: Record<string, string> = {
      'another key': await stranger.token(sub, wallet.address),
      expired: await privy.token(sub, wallet.address, { issuedAt: new Date(Date.now() - 7200_000), ttlSeconds: 3600 }),
      'another app': await privy.token(sub, wallet.address, { appId: 'another-app' }),
      'another issuer': await privy.token(sub, wallet.address, { issuer: 'auth.example.com' }),
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`,
      'tampered payload': `${h}.${b64({ ...claims, sub: newSub() })}.${s}`,
      'not a DID': await privy.token('user-1', wallet.address),
      garbage: 'not-a-jwt',
    };
    const users = await count('users');
    const sessions = await count('sessions');
    for (const [name, token] of Object.entries(cases)) {
      const res = await exchange(token);
      expect({ name, status: res.status, code: res.error?.code }).toEqual({ name, status: 401, code: 'INVALID_IDENTITY_TOKEN' });
      expect(res.error?.error).not.toContain(token);
    }
    const noWallet = await exchange(await privy.token(sub, wallet.address, { linkedAccounts: [{ type: 'email', address: 'a@b.c' }] }));
    expect(noWallet.status).toBe(422);
    expect(noWallet.error).toEqual({ error: expect.any(String), code: 'NO_LINKED_WALLET', details: null });
    expect(await count('users')).toBe(users);
    expect(await count('sessions')).toBe(sessions);
    expect((await sql.query('select 1 from users where privy_sub = $1', [sub])).rowCount).toBe(0);
  });

  it('refuses a wallet that belongs to another Privy user with 409 WALLET_IN_USE', async () => {
    const wallet = randomWallet();
    expect((await exchange(await privy.token(newSub(), wallet.address))).status).toBe(200);
    const res = await exchange(await privy.token(newSub(), wallet.address));
    expect(res.status).toBe(409);
    expect(res.error?.code).toBe('WALLET_IN_USE');
  });
});

describe('sessions', () => {
  it('stores only 32-byte SHA-256 hashes: no stored value works as a bearer token', async () => {
    const res = await exchange(await privy.token(newSub(), randomWallet().address));
    const token = res.data!.session_token;
    const rows = (await sql.query('select token_hash from sessions')).rows as Array<{ token_hash: Buffer }>;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.token_hash.length).toBe(32);
    const mine = rows.find((r) => r.token_hash.equals(createHash('sha256').update(token).digest()));
    expect(mine).toBeDefined();
    const dump = JSON.stringify((await sql.query('select * from sessions')).rows);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(3));
    for (const stolen of [
      mine!.token_hash.toString('hex'),
      mine!.token_hash.toString('base64url'),
      `us_${mine!.token_hash.toString('base64url')}`,
    ]) {
      const r = await preferences(stolen);
      expect(r.status).toBe(401);
      expect(r.error?.code).toBe('INVALID_SESSION');
    }
    expect((await preferences(token)).status).toBe(200);
  });

  it('logout takes effect immediately, on required and optional-auth routes alike', async () => {
    const res = await exchange(await privy.token(newSub(), randomWallet().address));
    const token = res.data!.session_token;
    expect((await preferences(token)).status).toBe(200);
    const out = await send(logout({ client: sdkClient(svc.baseUrl, token) }));
    expect(out.status).toBe(204);
    expect(out.data).toBeNull(); // what the SDK gives for the empty 204 body
    const client = sdkClient(svc.baseUrl, token);
    const routes = {
      'GET /v1/user/preferences': () => send(getPreferences({ client })),
      'GET /v1/contests': () => send(listContests({ client })),
      'POST /v1/auth/logout': () => send(logout({ client })),
    };
    for (const [route, request] of Object.entries(routes)) {
      const r = await request();
      expect({ route, status: r.status, code: r.error?.code }).toEqual({ route, status: 401, code: 'INVALID_SESSION' });
    }
    expect((await sql.query('select revoked_at from sessions where user_id = $1', [res.data?.user_id])).rows[0].revoked_at).toBeInstanceOf(
      Date,
    );
  });

  it('an expired session is 401 INVALID_SESSION', async () => {
    const res = await exchange(await privy.token(newSub(), randomWallet().address));
    await sql.query("update sessions set expires_at = now() - interval '1 second' where user_id = $1", [res.data?.user_id]);
    const r = await preferences(res.data?.session_token);
    expect(r.status).toBe(401);
    expect(r.error?.code).toBe('INVALID_SESSION');
  });

  it('missing, malformed and garbage bearers get UNAUTHORIZED / INVALID_SESSION', async () => {
    const none = await preferences();
    expect([none.status, none.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    for (const token of ['garbage', 'us_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'x'.repeat(5000)]) {
      const r = await preferences(token);
      expect([r.status, r.error?.code]).toEqual([401, 'INVALID_SESSION']);
    }
    // Raw fetch: the SDK sends only bearer credentials, and this checks that another scheme is refused.
    const basic = await fetch(`${svc.baseUrl}/v1/user/preferences`, { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
  });

  it('a market-maker session is refused with 403 on user routes', async () => {
    const token = `mm_${randomBytes(32).toString('base64url')}`;
    remember(token);
    await sql.query(
      "insert into sessions (id, token_hash, kind, market_maker_address, expires_at) values ($1, $2, 'market_maker', $3, now() + interval '1 hour')",
      [randomUUID(), createHash('sha256').update(token).digest(), randomWallet().address],
    );
    const client = sdkClient(svc.baseUrl, token);
    const routes = {
      'GET /v1/user/preferences': () => send(getPreferences({ client })),
      'POST /v1/auth/logout': () => send(logout({ client })),
      'PATCH /v1/user/preferences': () => send(updatePreferences({ client, body: { handle: 'mm_handle' } })),
    };
    for (const [route, request] of Object.entries(routes)) {
      const r = await request();
      expect({ route, status: r.status, code: r.error?.code }).toEqual({ route, status: 403, code: 'FORBIDDEN' });
    }
  });

  it('a user session is refused with 403 on market-maker and operator routes', async () => {
    const res = await exchange(await privy.token(newSub(), randomWallet().address));
    const client = sdkClient(svc.baseUrl, res.data?.session_token);
    const routes = {
      'GET /v1/mm/pnl': () => send(getMakerPnl({ client })),
      // A valid body, so that only the session's kind can refuse it.
      'POST /v1/admin/market-makers': () =>
        send(createMarketMaker({ client, body: { wallet_address: randomWallet().address, name: 'mm' } })),
    };
    for (const [route, request] of Object.entries(routes)) {
      const r = await request();
      expect({ route, status: r.status, code: r.error?.code }).toEqual({ route, status: 403, code: 'FORBIDDEN' });
    }
  });

  it('never writes a token to the logs', async () => {
    expect(secrets.length).toBeGreaterThan(30);
    await svc.waitForLog((l) => l.msg === 'request' && l.operation_id === 'updatePreferences');
    const output = svc.rawOutput.join('\n');
    expect(output).toContain('session created');
    for (const s of secrets) expect(output.includes(s), 'a token appeared in the service log').toBe(false);
  });
});
