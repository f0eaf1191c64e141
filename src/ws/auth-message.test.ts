import { describe, expect, it } from 'vitest';
import { bytesToHex, recoverMessageAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AUTH_MESSAGE_BYTES, buildAuthMessage, normalizeSignature } from './auth-message.js';

const DOMAIN = 'contest-rfq-service market-maker v1';
const NONCE = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

// The worked example published in spec/asyncapi.yaml (info.description, "Worked example").
const WORKED = {
  privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  nonce: '72278dc0b52a7023492d8b67b8494129aadf15ba830596c4c8ad0ebc18b27f61',
  timestamp: 1767225600,
  message:
    '636f6e746573742d7266712d73657276696365206d61726b65742d6d616b657220763172278dc0b52a7023492d8b67b8494129aadf15ba830596c4c8ad0ebc18b27f6100b9556900000000',
  signature:
    '2cfe48aa8ee4973273137ca78b8485222eb570adf89f32ee811d500653ff457f60902b942cbbae11e7a177e3372d574a3166fb50943162dd5c023bf135e84c0e1c',
} as const;

describe('buildAuthMessage', () => {
  it('is 75 bytes: domain, then the decoded nonce, then the timestamp little-endian', () => {
    const message = buildAuthMessage(DOMAIN, NONCE, 0x0102030405060708n);
    expect(message).toHaveLength(75);
    expect(AUTH_MESSAGE_BYTES).toBe(75);
    expect(new TextDecoder().decode(message.subarray(0, 35))).toBe(DOMAIN);
    expect([...message.subarray(35, 67)]).toEqual(Array.from({ length: 32 }, (_, i) => i));
    expect([...message.subarray(67)]).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
  });

  it('signs the nonce bytes, not its hex text, and accepts upper-case hex', () => {
    const lower = buildAuthMessage(DOMAIN, 'ab'.repeat(32), 1);
    expect([...lower.subarray(35, 67)]).toEqual(new Array(32).fill(0xab));
    expect(buildAuthMessage(DOMAIN, 'AB'.repeat(32), 1)).toEqual(lower);
  });

  it('encodes number and bigint timestamps alike, up to the uint64 maximum', () => {
    expect(buildAuthMessage(DOMAIN, NONCE, 1767225600)).toEqual(buildAuthMessage(DOMAIN, NONCE, 1767225600n));
    expect([...buildAuthMessage(DOMAIN, NONCE, 0).subarray(67)]).toEqual(new Array(8).fill(0));
    expect([...buildAuthMessage(DOMAIN, NONCE, 2n ** 64n - 1n).subarray(67)]).toEqual(new Array(8).fill(0xff));
  });

  it('rejects a domain that is not exactly 35 ASCII bytes', () => {
    expect(() => buildAuthMessage(DOMAIN.slice(0, 34), NONCE, 1)).toThrow(TypeError);
    expect(() => buildAuthMessage(`${DOMAIN}!`, NONCE, 1)).toThrow(TypeError);
    expect(() => buildAuthMessage(`${DOMAIN.slice(0, 34)}é`, NONCE, 1)).toThrow(TypeError);
  });

  it('rejects a nonce that is not 64 hex characters', () => {
    expect(() => buildAuthMessage(DOMAIN, NONCE.slice(2), 1)).toThrow(TypeError);
    expect(() => buildAuthMessage(DOMAIN, `${NONCE}00`, 1)).toThrow(TypeError);
    expect(() => buildAuthMessage(DOMAIN, `0x${NONCE.slice(2)}`, 1)).toThrow(TypeError);
    expect(() => buildAuthMessage(DOMAIN, `${NONCE.slice(1)}g`, 1)).toThrow(TypeError);
  });

  it('rejects timestamps outside the uint64 range', () => {
    expect(() => buildAuthMessage(DOMAIN, NONCE, -1)).toThrow(TypeError);
    expect(() => buildAuthMessage(DOMAIN, NONCE, -1n)).toThrow(TypeError);
    expect(() => buildAuthMessage(DOMAIN, NONCE, 2n ** 64n)).toThrow(TypeError);
    expect(() => buildAuthMessage(DOMAIN, NONCE, 1.5)).toThrow(TypeError);
    expect(() => buildAuthMessage(DOMAIN, NONCE, Number.NaN)).toThrow(TypeError);
    expect(() => buildAuthMessage(DOMAIN, NONCE, 2 ** 53)).toThrow(TypeError);
  });
});

describe('normalizeSignature', () => {
  const rs = 'ab'.repeat(64);

  it('accepts 130 hex characters with or without 0x and returns them 0x-prefixed', () => {
    expect(normalizeSignature(`${rs}1b`)).toBe(`0x${rs}1b`);
    expect(normalizeSignature(`0x${rs}1c`)).toBe(`0x${rs}1c`);
    expect(normalizeSignature(`0x${rs.toUpperCase()}01`)).toBe(`0x${rs}01`);
    expect(normalizeSignature(`${rs}00`)).toBe(`0x${rs}00`);
  });

  it('returns null on any other shape or an impossible v', () => {
    expect(normalizeSignature(rs)).toBeNull();
    expect(normalizeSignature(`${rs}1b00`)).toBeNull();
    expect(normalizeSignature(`0X${rs}1b`)).toBeNull();
    expect(normalizeSignature(`${rs}1z`)).toBeNull();
    expect(normalizeSignature(`${rs}1d`)).toBeNull();
    expect(normalizeSignature(`${rs}02`)).toBeNull();
    expect(normalizeSignature('')).toBeNull();
  });
});

describe('the worked example of spec/asyncapi.yaml', () => {
  const message = buildAuthMessage(DOMAIN, WORKED.nonce, WORKED.timestamp);

  it('has the documented 75 bytes', () => {
    expect(bytesToHex(message)).toBe(`0x${WORKED.message}`);
  });

  it('has the documented signature, which recovers to the test account', async () => {
    const account = privateKeyToAccount(WORKED.privateKey);
    expect(account.address).toBe(WORKED.address);
    const signature = await account.signMessage({ message: { raw: message } });
    expect(signature).toBe(`0x${WORKED.signature}`);
    const normalized = normalizeSignature(WORKED.signature);
    expect(normalized).not.toBeNull();
    expect(await recoverMessageAddress({ message: { raw: message }, signature: normalized! })).toBe(WORKED.address);
  });

  it('verifies with v as 0/1 too, and not against another nonce', async () => {
    const v01 = normalizeSignature(`${WORKED.signature.slice(0, 128)}01`);
    expect(await recoverMessageAddress({ message: { raw: message }, signature: v01! })).toBe(WORKED.address);
    const other = buildAuthMessage(DOMAIN, NONCE, WORKED.timestamp);
    const signature = normalizeSignature(WORKED.signature)!;
    expect(await recoverMessageAddress({ message: { raw: other }, signature })).not.toBe(WORKED.address);
  });
});
