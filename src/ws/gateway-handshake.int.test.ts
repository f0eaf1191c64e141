// The market-maker WebSocket's handshake against real service processes (src/testing/mm-gateway.ts): the
// example client's session and where its token works, every signature and address form, and every documented
// failure of bad input and attacks, with no session left behind and the server unaffected.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { MarketMakerClient, signAuthChallenge, DEFAULT_AUTH_DOMAIN } from '@contest-rfq/sdk';
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import { createSession, getHealth, getMakerPnl, getPreferences } from '../../generated/openapi/sdk.gen.js';
import { randomWallet } from '../testing/identity.js';
import {
  authResponse,
  challenge,
  clients,
  failure,
  openRaw,
  registerMm,
  secrets,
  sessionCount,
  useGateway,
  wsUrl,
} from '../testing/mm-gateway.js';
import { sdkClient, sent } from '../testing/sdk-client.js';

const g = useGateway('mmwsh');

describe('handshake', () => {
  it('succeeds with the example client; the token works on GET /v1/mm/pnl and is 403 on a user route', async () => {
    const wallet = await registerMm();
    const before = await sessionCount();
    const client = new MarketMakerClient({ url: wsUrl(g.a), account: wallet });
    clients.push(client);
    client.on('frame', (f) => expect(validateServerMessage(f), JSON.stringify(f)).toBe(true));
    const s = await client.start().waitForSession();
    secrets.push(s.token);
    expect(s.token).toMatch(/^mm_[A-Za-z0-9_-]{43}$/);
    expect(s.expiresAt).toBeGreaterThan(Date.now() / 1000 + 590);
    expect(await sessionCount()).toBe(before + 1);
    const pnl = await sent(getMakerPnl({ client: sdkClient(g.a.baseUrl, s.token) }));
    expect(pnl.status).toBe(200);
    expect(pnl.data).toMatchObject({ wallet_address: wallet.address, realized_pnl_micros: '0', trade_count: 0 });
    expect(Math.abs(pnl.data!.as_of_ms - Date.now())).toBeLessThan(10_000);
    expect((await sent(getMakerPnl({ client: sdkClient(g.b.baseUrl, s.token) }))).status).toBe(200); // any process
    const user = await sent(getPreferences({ client: sdkClient(g.a.baseUrl, s.token) }));
    expect(user.status).toBe(403);
    expect(user.error?.code).toBe('FORBIDDEN');
    // a user token is refused on the market-maker route
    const userWallet = randomWallet();
    const us = await sent(
      createSession({
        client: sdkClient(g.a.baseUrl),
        body: { privy_token: await g.privy.token(`did:privy:${randomBytes(8).toString('hex')}`, userWallet.address) },
      }),
    );
    expect((await sent(getMakerPnl({ client: sdkClient(g.a.baseUrl, us.data!.session_token) }))).status).toBe(403);
    // the connection keeps answering pings and is not closed by the auth deadline
    await new Promise((r) => setTimeout(r, 3000));
    expect(client.readyState).toBe(WebSocket.OPEN);
    await client.stop();
  });

  it('accepts checksum and lowercase wallets, v 27/28 and 0/1, with and without 0x', async () => {
    const wallet = await registerMm();
    for (const form of ['checksum+0x', 'lower+bare', 'v01+0x', 'v01+bare+lower'] as const) {
      const raw = await openRaw(g.a);
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
    const raw = await openRaw(g.a);
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
    const raw = await openRaw(g.a);
    const other = await openRaw(g.a);
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
    const raw = await openRaw(g.a);
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
    const raw = await openRaw(g.a);
    raw.send(JSON.stringify({ type: 'auth', pad: 'x'.repeat(1024 * 1024) }));
    expect((await raw.closed).code).toBe(1009);
    const again = await openRaw(g.a);
    await challenge(again);
    expect((await sent(getHealth({ client: sdkClient(g.a.baseUrl) }))).status).toBeLessThan(500);
    again.ws.close();
  });

  it('a flood of auth attempts: each answered, then the connection is closed (1008); others unaffected', async () => {
    const wallet = await registerMm();
    const before = await sessionCount();
    // one attempt after another: 10 are answered, the 11th closes the connection
    const raw = await openRaw(g.a);
    for (let i = 0; i < 10; i++) {
      await challenge(raw);
      expect(await authResponse(raw, { wallet_address: wallet.address, signature: '22'.repeat(65) })).toEqual(failure('invalid_signature'));
    }
    await challenge(raw);
    raw.send({ type: 'auth_response', wallet_address: wallet.address, signature: '22'.repeat(65) });
    expect((await raw.closed).code).toBe(1008);
    // all at once: the frame bounds close it sooner (src/ws/abuse.int.test.ts), each answer still a failure
    const burst = await openRaw(g.a);
    for (let i = 0; i < 200; i++) {
      burst.send({ type: 'auth' });
      burst.send({ type: 'auth_response', wallet_address: wallet.address, signature: '22'.repeat(65) });
    }
    expect((await burst.closed).code).toBe(1008);
    const results = burst.frames.filter((f) => f.type === 'auth_result');
    expect(results.length).toBeLessThanOrEqual(10);
    for (const r of results) expect(r).toEqual(failure('invalid_signature'));
    expect(await sessionCount()).toBe(before);
    const client = new MarketMakerClient({ url: wsUrl(g.a), account: wallet });
    clients.push(client);
    secrets.push((await client.start().waitForSession()).token);
    await client.stop();
  });
});
