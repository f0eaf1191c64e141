import { describe, expect, it } from 'vitest';
import { validatePosting } from './ledger.js';
import { microsFromRequest, microsToWire } from './amounts.js';
import { canonicalJson, fingerprint } from '../idempotency.js';

const user = { userId: 'u', kind: 'user_available' as const };
const clearing = { system: 'settlement_clearing' as const };

describe('validatePosting', () => {
  it('accepts entries summing to zero', () => {
    expect(() =>
      validatePosting({
        kind: 'deposit',
        reference: 'x',
        entries: [
          { account: clearing, amount: -5n },
          { account: user, amount: 5n },
        ],
      }),
    ).not.toThrow();
  });
  it('refuses an unbalanced posting, a zero entry, a single entry', () => {
    expect(() =>
      validatePosting({
        kind: 'deposit',
        reference: 'x',
        entries: [
          { account: clearing, amount: -5n },
          { account: user, amount: 6n },
        ],
      }),
    ).toThrow(/sum to zero/);
    expect(() =>
      validatePosting({
        kind: 'deposit',
        reference: 'x',
        entries: [
          { account: clearing, amount: 0n },
          { account: user, amount: 0n },
        ],
      }),
    ).toThrow(/zero entry/);
    expect(() => validatePosting({ kind: 'deposit', reference: 'x', entries: [{ account: user, amount: 0n }] })).toThrow(/two entries/);
  });
});

describe('amounts', () => {
  it('keeps micros exact up to 2^53-1 and writes decimal strings', () => {
    expect(microsToWire(microsFromRequest(9007199254740991))).toBe('9007199254740991');
    expect(microsToWire(microsFromRequest(9007199254740991) * 1000n)).toBe('9007199254740991000');
    expect(() => microsFromRequest(0)).toThrow();
    expect(() => microsFromRequest(1.5)).toThrow();
  });
});

describe('idempotency fingerprint', () => {
  it('ignores key order and tells different bodies apart', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 1, e: 0 }] } })).toBe('{"a":{"c":[3,{"e":0,"f":1}],"d":2},"b":1}');
    expect(fingerprint({ amount_micros: 5, idempotency_key: 'k' })).toBe(fingerprint({ idempotency_key: 'k', amount_micros: 5 }));
    expect(fingerprint({ amount_micros: 5, idempotency_key: 'k' })).not.toBe(fingerprint({ amount_micros: 6, idempotency_key: 'k' }));
  });
});
