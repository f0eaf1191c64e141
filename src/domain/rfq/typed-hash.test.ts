// The direct EIP-712 encoding gives viem's hashTypedData digest, byte for byte, over random orders, quotes
// and domains (the reference), and refuses what viem refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hashTypedData, type Hex } from 'viem';
import { orderToTyped, orderTypedData, quoteToTyped, quoteTypedData, rfqDomain, type RfqOrderJson } from './typed-data.js';
import { orderHash, quoteHash } from './typed-hash.js';

const hex = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => bytesToHex(b));
const safe = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const domainArb = fc.record({
  name: fc.string({ minLength: 1, maxLength: 64 }),
  chainId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  salt: hex(32),
});
const orderArb: fc.Arbitrary<RfqOrderJson> = fc.record({
  taker: hex(20),
  legs: fc.array(fc.record({ market_id: safe, direction: fc.constantFrom('up' as const, 'down' as const) }), {
    minLength: 1,
    maxLength: 9,
  }),
  stake_micros: safe,
  min_odds_bps: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  order_type: fc.constantFrom('IOC' as const, 'FOK' as const),
  nonce: safe,
  deadline_ms: safe,
});
const quoteArb = fc.record({
  rfq_id: fc.oneof(fc.uuid(), fc.string({ maxLength: 80 })),
  maker: hex(20),
  odds_bps: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  max_fill_micros: safe,
  valid_until_ms: safe,
});

describe('typed-hash', () => {
  it('orderHash is hashTypedData of the RfqOrder', () => {
    fc.assert(
      fc.property(domainArb, orderArb, (d, o) => {
        const domain = rfqDomain(d.name, d.chainId, d.salt as Hex);
        expect(orderHash(domain, orderToTyped(o))).toBe(hashTypedData(orderTypedData(domain, o)));
      }),
      { numRuns: 300 },
    );
  });

  it('quoteHash is hashTypedData of the Quote', () => {
    fc.assert(
      fc.property(domainArb, quoteArb, (d, q) => {
        const domain = rfqDomain(d.name, d.chainId, d.salt as Hex);
        expect(quoteHash(domain, quoteToTyped(q))).toBe(hashTypedData(quoteTypedData(domain, q)));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a value outside its Solidity type, as viem does', () => {
    const domain = rfqDomain('x', 1, `0x${'00'.repeat(32)}`);
    const q = { rfq_id: 'a', maker: `0x${'11'.repeat(20)}`, odds_bps: 2 ** 32, max_fill_micros: 1, valid_until_ms: 1 };
    expect(() => hashTypedData(quoteTypedData(domain, q))).toThrow();
    expect(() => quoteHash(domain, quoteToTyped(q))).toThrow(RangeError);
  });
});
