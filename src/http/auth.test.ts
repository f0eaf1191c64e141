import { describe, expect, it } from 'vitest';
import { authenticate, bearerToken, sameDigest, type Principal } from './auth.js';
import { hashToken } from '../domain/identity/sessions.js';

const user: Principal = { kind: 'user', userId: 'u1', sessionId: 's1', address: '0x0000000000000000000000000000000000000001' };
const mm: Principal = { kind: 'market_maker', walletAddress: '0x0000000000000000000000000000000000000002', sessionId: 's2' };
const tokens: Record<string, Principal> = { usertoken: user, mmtoken: mm, optoken: { kind: 'operator', name: 'default' } };
const resolve = async (t: string) => tokens[t] ?? null;
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { status: number; code: string }) => `${e.status} ${e.code}`,
  );

describe('authenticate', () => {
  it('public routes ignore credentials entirely', async () => {
    expect(await authenticate([], 'Bearer garbage', resolve)).toEqual({ kind: 'anonymous' });
  });
  it('optional routes: anonymous without a token, the user with one, 401 INVALID_SESSION with a bad one', async () => {
    const optional: Record<string, string[]>[] = [{}, { bearer: [] }];
    expect(await authenticate(optional, undefined, resolve)).toEqual({ kind: 'anonymous' });
    expect(await authenticate(optional, 'Bearer usertoken', resolve)).toEqual(user);
    expect(await codeOf(authenticate(optional, 'Bearer nope', resolve))).toBe('401 INVALID_SESSION');
    expect(await codeOf(authenticate(optional, 'Basic dXNlcjpwYXNz', resolve))).toBe('401 INVALID_SESSION');
  });
  it('required routes: 401 UNAUTHORIZED without a token', async () => {
    expect(await codeOf(authenticate([{ bearer: [] }], undefined, resolve))).toBe('401 UNAUTHORIZED');
  });
  it('a token of the wrong kind is 403 FORBIDDEN, both ways', async () => {
    expect(await codeOf(authenticate([{ bearer: [] }], 'Bearer mmtoken', resolve))).toBe('403 FORBIDDEN');
    expect(await codeOf(authenticate([{ marketMakerBearer: [] }], 'Bearer usertoken', resolve))).toBe('403 FORBIDDEN');
    expect(await codeOf(authenticate([{ operatorBearer: [] }], 'Bearer usertoken', resolve))).toBe('403 FORBIDDEN');
    expect(await authenticate([{ operatorBearer: [] }], 'Bearer optoken', resolve)).toEqual({ kind: 'operator', name: 'default' });
  });
});

describe('bearerToken', () => {
  it('distinguishes absent, malformed and present', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('Bearer')).toBeNull();
    expect(bearerToken('Token abc')).toBeNull();
    expect(bearerToken('bearer abc.def')).toBe('abc.def');
  });
});

describe('sameDigest', () => {
  it('compares whole secrets, by their digests', () => {
    expect(sameDigest(hashToken('a-long-operator-token'), hashToken('a-long-operator-token'))).toBe(true);
    expect(sameDigest(hashToken('a-long-operator-toke'), hashToken('a-long-operator-token'))).toBe(false);
    expect(sameDigest(hashToken(''), hashToken('x'))).toBe(false);
  });
  it('operator routes with OPERATOR_TOKEN unset: 401 naming OPERATOR_TOKEN, whatever the header', async () => {
    const disabled = Object.assign(async (t: string) => tokens[t] ?? null, { operatorDisabled: true });
    const messageOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: { status: number; code: string; message: string }) => `${e.status} ${e.code} ${e.message}`,
      );
    for (const header of [undefined, 'Bearer ', 'Bearer optoken', 'Bearer usertoken']) {
      const answer = await messageOf(authenticate([{ operatorBearer: [] }], header, disabled));
      expect(answer).toMatch(/^401 UNAUTHORIZED the operator API is disabled .*OPERATOR_TOKEN nor OPERATOR_TOKENS_FILE is set/);
      expect(answer).not.toMatch(/not of the form|sign in again/);
    }
    // Other routes are not affected.
    expect(await authenticate([{ bearer: [] }], 'Bearer usertoken', disabled)).toEqual(user);
  });
});
