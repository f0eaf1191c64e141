import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../domain/errors.js';
import { checkText, guardRequest, parseInteger } from './input-guard.js';

const int64 = { type: 'integer', format: 'int64' };
const resolve = { path: '/v1/admin/markets/{market_id}/resolve', parameters: [{ name: 'market_id', in: 'path', schema: int64 }] };
const list = { path: '/v1/contests', parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', format: 'int32' } }] };

function failure(fn: () => unknown): Array<{ in: string; path: string; message: string }> {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailed);
    return (err as ValidationFailed).details as never;
  }
  throw new Error('no failure');
}

describe('parseInteger', () => {
  it('takes decimal digits within the format, exactly at the int64 edges', () => {
    expect(parseInteger(int64, '9223372036854775807')).toBe(9223372036854775807n);
    expect(parseInteger(int64, '-9223372036854775808')).toBe(-9223372036854775808n);
    expect(parseInteger(int64, '007')).toBe(7n);
    expect(parseInteger(int64, '9223372036854775808')).toMatch(/out of range/);
    expect(parseInteger({ type: 'integer', format: 'int32' }, '2147483648')).toMatch(/out of range/);
    for (const bad of ['1e3', '0x10', ' 5', '5 ', '1.5', '+1', '', 'Infinity']) expect(parseInteger(int64, bad)).toMatch(/decimal digits/);
    expect(parseInteger({ type: 'string' }, '1e3')).toBeUndefined();
  });
});

describe('checkText', () => {
  it('refuses NUL and unpaired surrogates, keeps the rest', () => {
    expect(checkText('a\u0000')).toMatch(/U\+0000/);
    expect(checkText('\ud800')).toMatch(/surrogate/);
    expect(checkText('🙂 é \u202e')).toBeUndefined();
  });
});

describe('guardRequest', () => {
  it('canonicalises integer path parameters and lists every failure', () => {
    expect(guardRequest(resolve, '/v1/admin/markets/0042/resolve', {}, undefined).path).toBe('/v1/admin/markets/42/resolve');
    expect(failure(() => guardRequest(resolve, '/v1/admin/markets/%C3%28/resolve', {}, undefined))).toEqual([
      { in: 'path', path: '/market_id', message: 'is not valid percent-encoded UTF-8' },
    ]);
    const details = failure(() => guardRequest(list, '/v1/contests', { limit: '1e3', cursor: 'a\u0000' }, { a: [{ 'b/c': '\udc00' }] }));
    expect(details.map((d) => `${d.in} ${d.path}`)).toEqual(['query /limit', 'query /cursor', 'body /a/0/b~1c']);
  });

  it('ignores the query of an operation that declares no query parameter', () => {
    expect(guardRequest({ path: '/healthz' }, '/healthz', { x: '\u0000' }, undefined)).toEqual({ path: '/healthz', query: {} });
  });

  it('walks deeply nested bodies without recursion', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(failure(() => guardRequest({ path: '/x' }, '/x', {}, deep))).toHaveLength(1);
  });
});
