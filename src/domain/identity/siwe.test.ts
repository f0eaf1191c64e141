import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { checkSiwe, checkSiweSignature, parseSiwe } from './siwe.js';
import { recoverMessageAddress } from 'viem';
import { newNonce } from './wallet-nonces.js';

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const NOW = new Date('2026-06-01T12:00:00.000Z');
const EXPECT = { domain: 'app.example.com', chainIds: [1, 8453], now: NOW };

const message = (over: Partial<Parameters<typeof createSiweMessage>[0]> = {}) =>
  createSiweMessage({
    domain: 'app.example.com',
    address: account.address,
    statement: 'Sign in to contest-rfq-service',
    uri: 'https://app.example.com',
    version: '1',
    chainId: 8453,
    nonce: 'abcdef0123456789abcdef',
    issuedAt: new Date(NOW.getTime() - 5_000),
    ...over,
  });

function rejection(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return `${err.status} ${err.code}: ${err.message}`;
  }
}
const check = (m: string) => rejection(() => checkSiwe(parseSiwe(m), EXPECT));

describe('Sign-In with Ethereum checks', () => {
  it('accepts a well-formed message for our domain and chain, and reads signer and nonce', () => {
    const parsed = parseSiwe(message());
    expect(parsed).toMatchObject({ address: account.address, nonce: 'abcdef0123456789abcdef', chainId: 8453, domain: 'app.example.com' });
    expect(check(message())).toBe('ok');
    expect(check(message({ address: account.address.toLowerCase() as `0x${string}` }))).toBe('ok');
  });

  it('rejects text that is not an EIP-4361 message', () => {
    for (const m of ['hello', '', message().replace(/\nNonce: .*\n/, '\n'), message().replace('Issued At', 'Issued')]) {
      expect(rejection(() => parseSiwe(m))).toMatch(/^401 INVALID_SIWE_MESSAGE: the message is not an EIP-4361/);
    }
  });

  it('rejects another domain, another chain and another version', () => {
    expect(check(message({ domain: 'evil.example.com' }))).toMatch(/^401 INVALID_SIWE_MESSAGE: .*domain "evil.example.com"/);
    expect(check(message({ chainId: 137 }))).toMatch(/^401 INVALID_SIWE_MESSAGE: .*Chain ID 137 is not accepted/);
    expect(check(message().replace('Version: 1', 'Version: 2'))).toMatch(/version/);
  });

  it('enforces Issued At (60 s skew), Expiration Time and Not Before', () => {
    expect(check(message({ issuedAt: new Date(NOW.getTime() + 30_000) }))).toBe('ok');
    expect(check(message({ issuedAt: new Date(NOW.getTime() + 120_000) }))).toMatch(/"Issued At" is in the future/);
    expect(check(message({ expirationTime: new Date(NOW.getTime() - 1) }))).toMatch(/has expired/);
    expect(check(message({ expirationTime: new Date(NOW.getTime() + 60_000) }))).toBe('ok');
    expect(check(message({ notBefore: new Date(NOW.getTime() + 60_000) }))).toMatch(/not valid yet/);
    expect(check(message({ notBefore: new Date(NOW.getTime() - 60_000) }))).toBe('ok');
    expect(check(message().replace(/Issued At: .*/, 'Issued At: yesterday'))).toMatch(/not an RFC 3339/);
  });

  it('rejects an address with a wrong EIP-55 checksum', () => {
    const bad = account.address.replace(/[a-f]/, (c) => c.toUpperCase());
    expect(rejection(() => parseSiwe(message().replace(account.address, bad)))).toMatch(/EIP-55/);
  });

  it('verifies the personal_sign signature of the message by its address', async () => {
    const m = message();
    const signature = await account.signMessage({ message: m });
    await expect(checkSiweSignature(m, account.address, signature)).resolves.toBeUndefined();
    const other = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
    const foreign = await other.signMessage({ message: m });
    await expect(checkSiweSignature(m, account.address, foreign)).rejects.toMatchObject({ code: 'INVALID_SIWE_MESSAGE' });
    await expect(checkSiweSignature(`${m}\n`, account.address, signature)).rejects.toMatchObject({ code: 'INVALID_SIWE_MESSAGE' });
    const badV = `${signature.slice(0, -2)}05`;
    await expect(checkSiweSignature(m, account.address, badV)).rejects.toMatchObject({ status: 401, code: 'INVALID_SIWE_MESSAGE' });
    // The malleable twin (s -> n - s, v flipped) recovers the same address in viem; EIP-2 refuses it.
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const v = Number.parseInt(signature.slice(130), 16);
    const twin = `${signature.slice(0, 66)}${(n - BigInt(`0x${signature.slice(66, 130)}`)).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(await recoverMessageAddress({ message: m, signature: twin as `0x${string}` })).toBe(account.address);
    await expect(checkSiweSignature(m, account.address, twin)).rejects.toMatchObject({ status: 401, code: 'INVALID_SIWE_MESSAGE' });
  });

  it('issues alphanumeric nonces of at least 16 characters that never repeat', () => {
    const nonces = Array.from({ length: 200 }, newNonce);
    for (const n of nonces) expect(n).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(new Set(nonces).size).toBe(200);
    expect(parseSiwe(message({ nonce: nonces[0]! })).nonce).toBe(nonces[0]);
  });
});
