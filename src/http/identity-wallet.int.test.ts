// Sign-In with Ethereum and handles, over HTTP against the real service on PostgreSQL (queues on
// PostgreSQL too: the "PostgreSQL only" deployment).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../testing/service-process.js';
import { createSession, createWalletSession, getPreferences, getWalletNonce, updatePreferences } from '../../generated/openapi/sdk.gen.js';
import { randomWallet, signSiwe, type TestPrivy, type TestWallet } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { startTestService, type TestService } from '../testing/test-service.js';

const DOMAIN = 'app.test:3000';
let t: TestService;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;

beforeAll(async () => {
  // No REDIS_URL: queues on PostgreSQL.
  t = await startTestService('idwallet', { REDIS_URL: undefined, SIWE_DOMAIN: DOMAIN, SIWE_CHAIN_IDS: '1,8453' });
  ({ svc, privy, sql } = t);
});

afterAll(async () => {
  await t?.stop();
});

async function nonce(): Promise<string> {
  const res = await send(getWalletNonce({ client: sdkClient(svc.baseUrl) }));
  expect(res.status).toBe(200);
  expect(Object.keys(res.data ?? {}).sort()).toEqual([
    'accepted_chain_ids',
    'chain_id',
    'domain',
    'expires_at',
    'nonce',
    'statement',
    'uri',
    'version',
  ]);
  expect(res.data?.domain).toBe(DOMAIN);
  expect(res.data?.nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
  const now = Date.now() / 1000;
  expect(res.data?.expires_at).toBeGreaterThan(now + 290);
  expect(res.data?.expires_at).toBeLessThanOrEqual(now + 300);
  return res.data!.nonce;
}

const signIn = (body: { message: string; signature: string }) => send(createWalletSession({ client: sdkClient(svc.baseUrl), body }));
const preferences = (token: string) => send(getPreferences({ client: sdkClient(svc.baseUrl, token) }));
const setHandle = (token: string, handle: string) => send(updatePreferences({ client: sdkClient(svc.baseUrl, token), body: { handle } }));

async function walletSession(wallet: TestWallet): Promise<string> {
  const res = await signIn(await signSiwe(wallet, { domain: DOMAIN, nonce: await nonce() }));
  expect(res.status).toBe(200);
  return res.data!.session_token;
}

function expectRejected(res: { status: number; error?: { code: string; error: string } }, reason: RegExp) {
  expect({ status: res.status, code: res.error?.code }).toEqual({ status: 401, code: 'INVALID_SIWE_MESSAGE' });
  expect(res.error?.error).toMatch(reason);
}

describe('Sign-In with Ethereum', () => {
  it('signs in with a signed EIP-4361 message; the same wallet is the same user', async () => {
    const wallet = randomWallet();
    const first = await signIn(await signSiwe(wallet, { domain: DOMAIN, nonce: await nonce() }));
    expect(first.status).toBe(200);
    expect(Object.keys(first.data ?? {}).sort()).toEqual(['address', 'expires_at', 'session_token', 'user_id']);
    expect(first.data?.address).toBe(wallet.address);
    const prefs = await preferences(first.data!.session_token);
    expect(prefs.data).toMatchObject({ user_id: first.data?.user_id, address: wallet.address, handle: null, x_handle: null });
    const again = await signIn(await signSiwe(wallet, { domain: DOMAIN, nonce: await nonce(), chainId: 1 }));
    expect(again.data?.user_id).toBe(first.data?.user_id);
    expect((await sql.query('select privy_sub from users where id = $1', [first.data?.user_id])).rows).toEqual([{ privy_sub: null }]);
  });

  it('a nonce signs in once: a replay is refused', async () => {
    const body = await signSiwe(randomWallet(), { domain: DOMAIN, nonce: await nonce() });
    expect((await signIn(body)).status).toBe(200);
    expectRejected(await signIn(body), /nonce is unknown, expired or already used/);
  });

  it('refuses another domain, another chain, an expired message and unknown or expired nonces', async () => {
    const wallet = randomWallet();
    expectRejected(await signIn(await signSiwe(wallet, { domain: 'evil.test', nonce: await nonce() })), /domain "evil.test"/);
    expectRejected(await signIn(await signSiwe(wallet, { domain: DOMAIN, nonce: await nonce(), chainId: 84532 })), /Chain ID 84532/);
    const expiredMessage = {
      domain: DOMAIN,
      nonce: await nonce(),
      issuedAt: new Date(Date.now() - 60_000),
      expirationTime: new Date(Date.now() - 1000),
    };
    expectRejected(await signIn(await signSiwe(wallet, expiredMessage)), /expired/);
    expectRejected(await signIn(await signSiwe(wallet, { domain: DOMAIN, nonce: randomBytes(16).toString('hex') })), /nonce is unknown/);
    const stale = await nonce();
    await sql.query("update wallet_nonces set expires_at = now() - interval '1 second' where nonce = $1", [stale]);
    expectRejected(await signIn(await signSiwe(wallet, { domain: DOMAIN, nonce: stale })), /nonce is unknown, expired/);
    expectRejected(await signIn({ message: 'Sign this to win a prize', signature: `0x${'11'.repeat(65)}` }), /not an EIP-4361/);
    expect((await sql.query('select 1 from users where lower(wallet_address) = lower($1)', [wallet.address])).rowCount).toBe(0);
  });

  it('a bad signature is refused and burns the nonce', async () => {
    const wallet = randomWallet();
    const n = await nonce();
    const honest = await signSiwe(wallet, { domain: DOMAIN, nonce: n });
    const forged = await randomWallet().signMessage({ message: honest.message });
    expectRejected(await signIn({ message: honest.message, signature: forged }), /signature does not recover/);
    expectRejected(await signIn(honest), /already used/);
    expect((await sql.query('select 1 from users where lower(wallet_address) = lower($1)', [wallet.address])).rowCount).toBe(0);
  });

  it('a Privy exchange for a wallet that signed in before attaches to that user', async () => {
    const wallet = randomWallet();
    const token = await walletSession(wallet);
    const userId = (await preferences(token)).data?.user_id;
    const sub = `did:privy:${randomBytes(8).toString('hex')}`;
    const res = await send(
      createSession({ client: sdkClient(svc.baseUrl), body: { privy_token: await privy.token(sub, wallet.address.toLowerCase()) } }),
    );
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ user_id: userId, address: wallet.address });
    expect((await sql.query('select privy_sub from users where id = $1', [userId])).rows).toEqual([{ privy_sub: sub }]);
  });
});

describe('handles', () => {
  it('sets a handle, keeps its letter case, and refuses it to others in any case with 409 HANDLE_TAKEN', async () => {
    const alice = await walletSession(randomWallet());
    const bob = await walletSession(randomWallet());
    const handle = `Al_${randomBytes(4).toString('hex')}`;
    const set = await setHandle(alice, handle);
    expect(set.status).toBe(200);
    expect(Object.keys(set.data ?? {}).sort()).toEqual(['address', 'avatar_seed', 'handle', 'user_id', 'x_avatar_url', 'x_handle']);
    expect(set.data?.handle).toBe(handle);
    expect(Number.isInteger(set.data?.avatar_seed)).toBe(true);
    const taken = await setHandle(bob, handle.toLowerCase());
    expect(taken.status).toBe(409);
    expect(taken.error).toEqual({ error: expect.any(String), code: 'HANDLE_TAKEN', details: null });
    const recased = await setHandle(alice, handle.toUpperCase());
    expect([recased.status, recased.data?.handle]).toEqual([200, handle.toUpperCase()]);
    const read = await preferences(alice);
    expect(read.data).toEqual(recased.data);
  });

  it('refuses invalid handles and unknown properties with 400', async () => {
    const token = await walletSession(randomWallet());
    // Raw fetch: these bodies break the spec's types (missing or extra properties), which the SDK will not take.
    for (const body of [
      { handle: 'ab' },
      { handle: 'a'.repeat(21) },
      { handle: 'bad-handle' },
      { handle: 'émile' },
      {},
      { handle: 'okay_one', extra: 1 },
    ]) {
      const r = await fetch(`${svc.baseUrl}/v1/user/preferences`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      expect({ body, status: r.status, code: ((await r.json()) as { code?: string }).code }).toEqual({
        body,
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    }
  });

  it('two users racing for one handle: exactly one wins', async () => {
    const tokens = await Promise.all([walletSession(randomWallet()), walletSession(randomWallet())]);
    for (let round = 0; round < 5; round++) {
      const handle = `race_${round}_${randomBytes(3).toString('hex')}`;
      const results = await Promise.all(tokens.map((token, i) => setHandle(token, i === 0 ? handle : handle.toUpperCase())));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect((await sql.query('select count(*)::int as n from users where lower(handle) = lower($1)', [handle])).rows[0].n).toBe(1);
    }
  });
});
