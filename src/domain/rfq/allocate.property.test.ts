// Properties of the allocation over random books, stakes and maker counts: what the signed order and the
// quotes authorise is never exceeded, the stake is accounted for exactly, the greedy order is respected,
// and rounding favours the taker (payout >= filled x min_odds / 10000, reported odds >= min_odds, no
// maker paying 1 micro or more above its quoted odds, no zero liability, no fill below the minimum).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOOK_NOW, orderFields, quoteArb } from '../../testing/rfq-books.js';
import { allocate, compareQuotes, payoutFor, type QuoteCandidate } from './allocate.js';

const NOW = BOOK_NOW;

const caseArb = fc.record({
  ...orderFields,
  quotes: fc.array(quoteArb, { maxLength: 8 }),
});

describe('allocate: properties', () => {
  it('never fills more than the stake, a quote its max_fill, below the signed minimum, an expired or uncovered quote, or above the maximum payout', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const quotes: QuoteCandidate[] = c.quotes.map((q, i) => ({ quoteId: `q${i}`, makerAddress: `m${i}`, ...q }));
        const extra = new Map(c.quotes.map((q, i) => [`q${i}`, q]));
        const r = await allocate(
          {
            stakeMicros: c.stakeMicros,
            minOddsBps: c.minOddsBps,
            orderType: c.orderType,
            nowMs: NOW,
            maxPayoutMicros: c.maxPayoutMicros,
            minFillMicros: c.minFillMicros,
            quotes,
          },
          { hasCollateral: (q, l) => extra.get(q.quoteId)!.balance >= l },
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
        // Rounding in the taker's favour: at least the signed minimum, exactly, and so are the reported odds.
        expect(payout * 10_000n).toBeGreaterThanOrEqual(filled * BigInt(c.minOddsBps));
        expect(payout).toBeGreaterThanOrEqual(payoutFor(filled, c.minOddsBps));
        expect(r.oddsBps).toBeGreaterThanOrEqual(c.minOddsBps);
        for (const f of r.fills) {
          const q = extra.get(f.quote.quoteId)!;
          expect(f.fillMicros).toBeLessThanOrEqual(f.quote.maxFillMicros);
          expect(f.quote.oddsBps).toBeGreaterThanOrEqual(c.minOddsBps);
          expect(f.quote.validUntilMs).toBeGreaterThan(NOW);
          expect(q.balance).toBeGreaterThanOrEqual(f.liabilityMicros);
          expect(f.liabilityMicros).toBe(f.payoutMicros - f.fillMicros);
          expect(f.liabilityMicros).toBeGreaterThanOrEqual(1n);
          expect(f.fillMicros).toBeGreaterThanOrEqual(c.minFillMicros);
          // The maker pays its quoted odds, rounded up by less than 1 micro.
          const exact = f.fillMicros * BigInt(f.quote.oddsBps);
          expect(f.payoutMicros * 10_000n).toBeGreaterThanOrEqual(exact);
          expect(f.payoutMicros * 10_000n - exact).toBeLessThan(10_000n);
        }
        // Greedy: fills come best first, and a quote that was passed over ("outbid") is never better than a filled one.
        const sorted = [...r.fills].sort((a, b) => compareQuotes(a.quote, b.quote));
        expect(sorted).toEqual(r.fills);
        const worstFilled = r.fills.at(-1)!.quote;
        for (const o of r.quotes) {
          // (A quote below the minimum fill never fills: quote_ack refuses those, below_min_fill.)
          const q = quotes.find((x) => x.quoteId === o.quoteId)!;
          if (o.status === 'not_filled' && o.reason === 'outbid' && q.maxFillMicros >= c.minFillMicros) {
            expect(
              compareQuotes(
                worstFilled,
                quotes.find((q) => q.quoteId === o.quoteId)!,
              ),
            ).toBeLessThan(0);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });
});
