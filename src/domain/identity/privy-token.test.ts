import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { devLinkedAccounts, signIdentityToken } from './dev-identity.js';
import { createPrivyVerifier, verifyPrivyToken, type PrivyVerifier } from './privy-token.js';

const APP = 'test-app-id';
const SUB = 'did:privy:clabc123';
const EMBEDDED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const EXTERNAL = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

let privateKey: CryptoKey;
let publicPem: string;
let verifier: PrivyVerifier;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  publicPem = await exportSPKI(pair.publicKey);
  verifier = await createPrivyVerifier(APP, publicPem);
});

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const mint = (over: Partial<Parameters<typeof signIdentityToken>[1]> = {}, key: CryptoKey = privateKey) =>
  signIdentityToken(key, { appId: APP, sub: SUB, linkedAccounts: devLinkedAccounts(EMBEDDED), ttlSeconds: 3600, ...over });

/** "<status> <code>: <message>" of the rejection, or "ok". */
async function outcome(token: string): Promise<string> {
  try {
    await verifyPrivyToken(verifier, token);
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    expect(err.message).not.toContain(token); // the token is never echoed
    return `${err.status} ${err.code}: ${err.message}`;
  }
}

describe('verifyPrivyToken', () => {
  it('accepts a valid token and returns the subject and embedded wallet', async () => {
    expect(await verifyPrivyToken(verifier, await mint())).toEqual({ sub: SUB, address: EMBEDDED, xHandle: null, xAvatarUrl: null });
  });

  it('rejects a token signed with another key', async () => {
    const other = await generateKeyPair('ES256');
    expect(await outcome(await mint({}, other.privateKey))).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*signature does not verify/);
  });

  it('rejects an expired token', async () => {
    const token = await mint({ issuedAt: new Date(Date.now() - 7200_000), ttlSeconds: 3600 });
    expect(await outcome(token)).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*expired/);
  });

  it('rejects a token for another Privy app (audience)', async () => {
    expect(await outcome(await mint({ appId: 'someone-elses-app' }))).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*another Privy app/);
  });

  it('rejects a token not issued by Privy (issuer)', async () => {
    expect(await outcome(await mint({ issuer: 'evil.example' }))).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*not issued by Privy/);
  });

  it('rejects an unsigned token (alg: none)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: 'privy.io',
      aud: APP,
      sub: SUB,
      iat: now,
      exp: now + 3600,
      linked_accounts: JSON.stringify(devLinkedAccounts(EMBEDDED)),
    };
    for (const token of [`${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`, `${b64({ alg: 'none' })}.${b64(payload)}`]) {
      expect(await outcome(token)).toMatch(/^401 INVALID_IDENTITY_TOKEN: /);
    }
  });

  it('rejects an HS256 token whose secret is the public key text (algorithm confusion)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ linked_accounts: JSON.stringify(devLinkedAccounts(EMBEDDED)) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('privy.io')
      .setAudience(APP)
      .setSubject(SUB)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode(publicPem));
    expect(await outcome(token)).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*not signed with ES256/);
  });

  it('rejects a token whose payload was changed after signing', async () => {
    const [header, payload, signature] = (await mint()).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = b64({ ...claims, linked_accounts: JSON.stringify(devLinkedAccounts(EXTERNAL)) });
    expect(await outcome(`${header}.${forged}.${signature}`)).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*signature does not verify/);
  });

  it('rejects malformed tokens', async () => {
    for (const token of ['abc', 'a.b.c', 'eyJ.eyJ.sig', 'x'.repeat(300)]) {
      expect(await outcome(token)).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*malformed/);
    }
  });

  it('requires a did:privy: subject and an expiry', async () => {
    expect(await outcome(await mint({ sub: 'user-42' }))).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*not a Privy DID/);
    const noExp = await new SignJWT({ linked_accounts: '[]' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('privy.io')
      .setAudience(APP)
      .setSubject(SUB)
      .setIssuedAt()
      .sign(privateKey);
    expect(await outcome(noExp)).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*exp/);
  });

  it('rejects a missing or invalid linked_accounts claim', async () => {
    const custom = (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer('privy.io')
        .setAudience(APP)
        .setSubject(SUB)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
    expect(await outcome(await custom({}))).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*no linked_accounts/);
    expect(await outcome(await custom({ linked_accounts: '[{"type":' }))).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*not valid JSON/);
    expect(await outcome(await custom({ linked_accounts: '{"type":"wallet"}' }))).toMatch(
      /^401 INVALID_IDENTITY_TOKEN: .*not a JSON array/,
    );
    expect(await outcome(await custom({ linked_accounts: 42 }))).toMatch(/^401 INVALID_IDENTITY_TOKEN: .*not a JSON array/);
  });

  it('answers 422 NO_LINKED_WALLET when no Ethereum wallet is linked', async () => {
    const cases: unknown[][] = [
      [],
      [{ type: 'email', address: 'a@example.com' }],
      [{ type: 'wallet', address: 'So11111111111111111111111111111111111111112', chain_type: 'solana', wallet_client_type: 'privy' }],
      [{ type: 'wallet', address: '0x1234', chain_type: 'ethereum', wallet_client_type: 'privy' }],
      [{ type: 'twitter_oauth', username: 'someone' }],
    ];
    for (const linkedAccounts of cases) {
      expect(await outcome(await mint({ linkedAccounts }))).toMatch(/^422 NO_LINKED_WALLET: /);
    }
  });

  it('prefers the embedded wallet over an external one listed first, else takes the first Ethereum wallet', async () => {
    const external = { type: 'wallet', address: EXTERNAL, chain_type: 'ethereum', wallet_client_type: 'metamask' };
    const embedded = { type: 'wallet', address: EMBEDDED.toLowerCase(), chain_type: 'ethereum', wallet_client_type: 'privy' };
    const solanaEmbedded = {
      type: 'wallet',
      address: 'So11111111111111111111111111111111111111112',
      chain_type: 'solana',
      wallet_client_type: 'privy',
    };
    const pick = async (linkedAccounts: unknown[]) => (await verifyPrivyToken(verifier, await mint({ linkedAccounts }))).address;
    expect(await pick([external, embedded])).toBe(EMBEDDED); // checksummed on the way out
    expect(await pick([solanaEmbedded, external])).toBe(EXTERNAL);
    expect(
      await pick([
        { ...external, address: EXTERNAL.toLowerCase() },
        { ...external, address: EMBEDDED },
      ]),
    ).toBe(EXTERNAL);
  });

  it('reads the linked X account into x_handle and x_avatar_url', async () => {
    const avatar = 'https://pbs.twimg.com/profile_images/1/avatar_normal.jpg';
    const linkedAccounts = [
      ...devLinkedAccounts(EMBEDDED),
      { type: 'twitter_oauth', username: 'satoshifan', name: 'S', profile_picture_url: avatar },
    ];
    expect(await verifyPrivyToken(verifier, await mint({ linkedAccounts }))).toMatchObject({ xHandle: 'satoshifan', xAvatarUrl: avatar });
    const noPicture = devLinkedAccounts(EMBEDDED, { username: 'plain' });
    expect(await verifyPrivyToken(verifier, await mint({ linkedAccounts: noPicture }))).toMatchObject({
      xHandle: 'plain',
      xAvatarUrl: null,
    });
  });
});
