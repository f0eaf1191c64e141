// Identity and sessions through the generated client: every documented status of createSession,
// getWalletNonce, createWalletSession, logout, getPreferences and updatePreferences (429 is covered by
// rate-limit.test.ts; 500 and 503 are pending). Every response is checked against the spec.
import { randomBytes } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  createSession,
  createWalletSession,
  getPreferences,
  getWalletNonce,
  logout,
  updatePreferences,
} from '../generated/openapi/sdk.gen.ts';
import { createSiweMessage } from 'viem/siwe';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { expectErrorBody, startContractService, type ContractService } from './harness.ts';
import { jsonOfSize, JSON_LIMIT_BYTES } from './framework-cases.ts';

const SIWE_DOMAIN = 'contract.test:3000';
let svc: ContractService;
let privy: TestPrivy;

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('identity', { env: { ...privy.env, SIWE_DOMAIN, RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

const newSub = () => `did:privy:${randomBytes(10).toString('hex')}`;

/** A fresh user session through createSession. */
async function session(): Promise<{ token: string; userId: string; address: string }> {
  const api = svc.client();
  const wallet = randomWallet();
  const { data } = await api.run(
    createSession({ client: api.client, body: { privy_token: await privy.token(newSub(), wallet.address) } }),
    {
      status: 200,
    },
  );
  return { token: data!.session_token, userId: data!.user_id, address: data!.address };
}

describe('createSession', () => {
  it('200: a Privy identity token becomes exactly the Session object', async () => {
    const api = svc.client();
    const wallet = randomWallet();
    const { data } = await api.run(
      createSession({ client: api.client, body: { privy_token: await privy.token(newSub(), wallet.address) } }),
      {
        status: 200,
      },
    );
    expect(Object.keys(data!).sort()).toEqual(['address', 'expires_at', 'session_token', 'user_id']);
    expect(data!.address).toBe(wallet.address);
    expect(data!.expires_at).toBeGreaterThan(Date.now() / 1000);
  });

  it('401 INVALID_IDENTITY_TOKEN: an expired token, a token of another key', async () => {
    const api = svc.client();
    const wallet = randomWallet();
    const expired = await privy.token(newSub(), wallet.address, { issuedAt: new Date(Date.now() - 7200_000), ttlSeconds: 60 });
    const { checked } = await api.run(createSession({ client: api.client, body: { privy_token: expired } }), {
      status: 401,
      code: 'INVALID_IDENTITY_TOKEN',
    });
    expectErrorBody(checked.body);
    const foreign = await (await createTestPrivy(privy.appId)).token(newSub(), wallet.address);
    await api.run(createSession({ client: api.client, body: { privy_token: foreign } }), { status: 401, code: 'INVALID_IDENTITY_TOKEN' });
  });

  it('409 WALLET_IN_USE: the wallet belongs to another Privy user', async () => {
    const api = svc.client();
    const wallet = randomWallet();
    await api.run(createSession({ client: api.client, body: { privy_token: await privy.token(newSub(), wallet.address) } }), {
      status: 200,
    });
    await api.run(createSession({ client: api.client, body: { privy_token: await privy.token(newSub(), wallet.address) } }), {
      status: 409,
      code: 'WALLET_IN_USE',
    });
  });

  it('422 NO_LINKED_WALLET: the Privy user has no Ethereum wallet', async () => {
    const api = svc.client();
    const token = await privy.token(newSub(), randomWallet().address, {
      linkedAccounts: [{ type: 'email', address: 'someone@example.com' }],
    });
    await api.run(createSession({ client: api.client, body: { privy_token: token } }), { status: 422, code: 'NO_LINKED_WALLET' });
  });
});

describe('wallet sign-in', () => {
  it('getWalletNonce 200, createWalletSession 200, then 401 INVALID_SIWE_MESSAGE for the replayed nonce', async () => {
    const api = svc.client();
    const { data: nonce } = await api.run(getWalletNonce({ client: api.client }), { status: 200 });
    expect(nonce!.expires_at).toBeGreaterThan(Date.now() / 1000);
    // Everything the message must carry comes from the nonce response: this deployment's settings.
    expect(nonce).toMatchObject({
      domain: SIWE_DOMAIN,
      uri: `https://${SIWE_DOMAIN}`,
      version: '1',
      chain_id: 8453,
      accepted_chain_ids: [1, 8453, 84532],
      statement: expect.any(String),
    });
    const wallet = randomWallet();
    const message = createSiweMessage({
      domain: nonce!.domain,
      address: wallet.address,
      statement: nonce!.statement,
      uri: nonce!.uri,
      version: nonce!.version,
      chainId: nonce!.chain_id,
      nonce: nonce!.nonce,
      issuedAt: new Date(),
    });
    const body = { message, signature: await wallet.signMessage({ message }) };
    const { data } = await api.run(createWalletSession({ client: api.client, body }), { status: 200 });
    expect(data!.address).toBe(wallet.address);
    await api.run(createWalletSession({ client: api.client, body }), { status: 401, code: 'INVALID_SIWE_MESSAGE' });
  });
});

describe('logout', () => {
  it('204, then the token is 401 INVALID_SESSION', async () => {
    const { token } = await session();
    const api = svc.client({ token });
    const { checked } = await api.run(logout({ client: api.client }), { status: 204 });
    expect(checked.text).toBe('');
    await api.run(logout({ client: api.client }), { status: 401, code: 'INVALID_SESSION' });
    await api.run(getPreferences({ client: api.client }), { status: 401, code: 'INVALID_SESSION' });
  });

  it('401 UNAUTHORIZED without a token; 403 FORBIDDEN with the operator token', async () => {
    const anonymous = svc.client();
    await anonymous.run(logout({ client: anonymous.client }), { status: 401, code: 'UNAUTHORIZED' });
    const operator = svc.client({ token: svc.operatorToken });
    await operator.run(logout({ client: operator.client }), { status: 403, code: 'FORBIDDEN' });
  });
});

describe('preferences', () => {
  it('getPreferences 200; updatePreferences 200 sets the handle', async () => {
    const me = await session();
    const api = svc.client({ token: me.token });
    const { data: before } = await api.run(getPreferences({ client: api.client }), { status: 200 });
    expect(before).toMatchObject({ user_id: me.userId, address: me.address, handle: null });
    const handle = `Me_${randomBytes(4).toString('hex')}`;
    const { data: after } = await api.run(updatePreferences({ client: api.client, body: { handle } }), { status: 200 });
    expect(after).toEqual({ ...before, handle });
  });

  it('updatePreferences 409 HANDLE_TAKEN: held by another user in another letter case', async () => {
    const handle = `Tk_${randomBytes(4).toString('hex')}`;
    const first = svc.client({ token: (await session()).token });
    await first.run(updatePreferences({ client: first.client, body: { handle } }), { status: 200 });
    const second = svc.client({ token: (await session()).token });
    await second.run(updatePreferences({ client: second.client, body: { handle: handle.toUpperCase() } }), {
      status: 409,
      code: 'HANDLE_TAKEN',
    });
  });

  it('updatePreferences 400, 413 and 415 for a signed-in user', async () => {
    const { token } = await session();
    const bad = await svc.call('updatePreferences', { token, body: { handle: 'no spaces' } }, { status: 400, code: 'VALIDATION_FAILED' });
    expect((bad.body as { details: unknown[] }).details).toContainEqual(expect.objectContaining({ in: 'body', path: '/handle' }));
    await svc.call(
      'updatePreferences',
      { token, rawBody: jsonOfSize(JSON_LIMIT_BYTES + 1), contentType: 'application/json' },
      { status: 413, code: 'PAYLOAD_TOO_LARGE' },
    );
    await svc.call(
      'updatePreferences',
      { token, rawBody: '{"handle":"abc"}', contentType: 'text/plain' },
      { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    );
  });

  it('401 and 403 on both operations', async () => {
    const anonymous = svc.client();
    await anonymous.run(getPreferences({ client: anonymous.client }), { status: 401, code: 'UNAUTHORIZED' });
    await anonymous.run(updatePreferences({ client: anonymous.client, body: { handle: 'abc' } }), { status: 401, code: 'UNAUTHORIZED' });
    const operator = svc.client({ token: svc.operatorToken });
    await operator.run(getPreferences({ client: operator.client }), { status: 403, code: 'FORBIDDEN' });
    await operator.run(updatePreferences({ client: operator.client, body: { handle: 'abc' } }), { status: 403, code: 'FORBIDDEN' });
  });
});
