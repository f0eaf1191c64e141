// Properties of the allocation over random books: what the signed order and the quotes authorise is
// never exceeded, the stake is accounted for exactly, and the greedy order is respected.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocate, compareQuotes, payoutFor, type QuoteCandidate } from './allocate.js';

const NOW = 1_767_225_600_000;

const quoteArb = fc.record({
  oddsBps: fc.integer({ min: 10_001, max: 60_000 }),
  maxFillMicros: fc.bigInt({ min: 1n, max: 20_000_000n }),
  validUntilMs: fc.integer({ min: NOW - 100, max: NOW + 100 }),
  receivedAtMs: fc.integer({ min: NOW - 500, max: NOW }),
  sigOk: fc.boolean(),
  collateralMicros: fc.bigInt({ min: 0n, max: 40_000_000n }),
});

const caseArb = fc.record({
  stakeMicros: fc.bigInt({ min: 10_000n, max: 20_000_000n }),
  minOddsBps: fc.integer({ min: 10_001, max: 40_000 }),
  orderType: fc.constantFrom('FOK' as const, 'IOC' as const),
  maxPayoutMicros: fc.bigInt({ min: 20_000_000n, max: 200_000_000n }),
  quotes: fc.array(quoteArb, { maxLength: 8 }),
});

describe('allocate: properties', () => {
  it('never fills more than the stake, a quote its max_fill, below the signed minimum, an expired, forged or uncovered quote, or above the maximum payout', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const quotes: QuoteCandidate[] = c.quotes.map((q, i) => ({ quoteId: `q${i}`, makerAddress: `m${i}`, ...q }));
        const extra = new Map(c.quotes.map((q, i) => [`q${i}`, q]));
        const r = await allocate(
          { stakeMicros: c.stakeMicros, minOddsBps: c.minOddsBps, orderType: c.orderType, nowMs: NOW, maxPayoutMicros: c.maxPayoutMicros, quotes },
          { verifySignature: (q) => extra.get(q.quoteId)!.sigOk, hasCollateral: (q, l) => extra.get(q.quoteId)!.collateralMicros >= l },
        );
        // One outcome per quote, in input order.
        expect(r.quotes.map((o) => o.quoteId)).toEqual(quotes.map((q) => q.quoteId));
        if (r.status === 'expired') {
          expect(r.releasedMicros).toBe(c.stakeMicros);
          expect(r.quotes.every((o) => o.status !== 'filled')).toBe(true);
          return;
        }
        const filled = r.fills.reduce((s, f) => s + f.fillMicros, 0n);
        const payout = r.fills.reduce((s, f) => s + f.payoutMicros, 0n);
        expect(r.filledStakeMicros).toBe(filled);
        expect(r.payoutMicros).toBe(payout);
        expect(filled + r.releasedMicros).toBe(c.stakeMicros);
        expect(filled).toBeGreaterThan(0n);
        if (c.orderType === 'FOK') expect(r.releasedMicros).toBe(0n);
        expect(payout).toBeLessThanOrEqual(c.maxPayoutMicros);
        // The taker gets at least its signed minimum, less at most one micro of rounding per extra maker.
        expect(payout).toBeGreaterThanOrEqual(payoutFor(filled, c.minOddsBps) - BigInt(r.fills.length - 1));
        for (const f of r.fills) {
          const q = extra.get(f.quote.quoteId)!;
          expect(f.fillMicros).toBeLessThanOrEqual(f.quote.maxFillMicros);
          expect(f.quote.oddsBps).toBeGreaterThanOrEqual(c.minOddsBps);
          expect(f.quote.validUntilMs).toBeGreaterThan(NOW);
          expect(q.sigOk).toBe(true);
          expect(q.collateralMicros).toBeGreaterThanOrEqual(f.liabilityMicros);
          expect(f.liabilityMicros).toBe(f.payoutMicros - f.fillMicros);
          expect(f.liabilityMicros).toBeGreaterThanOrEqual(0n);
        }
        // Greedy: fills come best first, and a quote that was passed over ("outbid") is never better than a filled one.
        const sorted = [...r.fills].sort((a, b) => compareQuotes(a.quote, b.quote));
        expect(sorted).toEqual(r.fills);
        const worstFilled = r.fills.at(-1)!.quote;
        for (const o of r.quotes) {
          if (o.status === 'not_filled' && o.reason === 'outbid') {
            expect(
              compareQuotes(
                worstFilled,
                quotes.find((q) => q.quoteId === o.quoteId)!,
              ),
            ).toBeLessThan(0);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
