// The publisher fits a close to the bus (fitToBus, rfq-events.ts): its quote_result frames ride inside its one
// rfq.closed message, as many as fit under the bus's message limit; a book too deep for that sends the rest as
// mm.event, in order, each to its maker. The pure close plan carries every result (close-plan.property.test.ts).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createLocalBus } from '../bus/local.js';
import type { QuoteResultDelivery, RfqEvent } from '../domain/rfq/events.js';
import { quoteResultFrame } from '../domain/rfq/records.js';
import { fitToBus, publishRfqEvents } from './rfq-events.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** A quote's result as a close makes it: filled with its amounts, or not filled with a reason. */
const deliveryArb = (n: number) =>
  fc
    .record({ filled: fc.boolean(), fill: fc.bigInt({ min: 1n, max: 20_000_000n }), odds: fc.integer({ min: 10_001, max: 60_000 }) })
    .map(({ filled, fill, odds }): QuoteResultDelivery => ({
      wallet: wallet(n),
      frame: quoteResultFrame(
        { rfqId: uuid(0), quoteId: uuid(n + 1), clientQuoteId: `client-${n}`, oddsBps: odds },
        filled
          ? { status: 'filled', positionId: uuid(99_999), fillMicros: fill, liabilityMicros: fill * 5n, filledAtMs: 1_767_225_600_000 }
          : { status: 'not_filled', reason: 'outbid' },
      ),
    }));

const closedOf = (results: QuoteResultDelivery[]): RfqEvent => ({
  topic: 'rfq.closed',
  frame: { type: 'rfq_closed', rfq_id: uuid(0), status: 'filled', closed_at_ms: 1_767_225_600_000 },
  // RFQ_MAX_LEGS (9) legs: the largest route a close carries.
  route: {
    assets: ['BTC', 'ETH', 'SOL'],
    durations: [300, 900, 3600],
    legs: Array.from({ length: 9 }, (_, i) => ({ asset: ['BTC', 'ETH', 'SOL'][i % 3]!, duration_secs: [300, 900, 3600][i % 3]! })),
  },
  results,
});

const booksOf = (n: number) => fc.tuple(...Array.from({ length: n }, (_, i) => deliveryArb(i)));
const bookArb = fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 10, max: 60 })).chain(booksOf);
/** 40 results: far more than one message holds (about 14). */
const deepBook = () => fc.sample(booksOf(40), 1)[0]!;

describe('fitToBus', () => {
  it('keeps one rfq.closed under the bus limit, sends the rest of a deep book as mm.event, and delivers every result once, in order', () => {
    fc.assert(
      fc.property(bookArb, (results) => {
        const messages = fitToBus([closedOf(results)]);
        expect(messages[0]!.topic).toBe('rfq.closed');
        expect(messages.slice(1).every((e) => e.topic === 'mm.event')).toBe(true);
        expect(JSON.stringify(messages[0]).length).toBeLessThan(7 * 1024);
        const delivered = messages.flatMap((e) =>
          e.topic === 'rfq.closed'
            ? e.results
            : e.topic === 'mm.event' && e.frame.type === 'quote_result'
              ? [{ wallet: e.wallet, frame: e.frame }]
              : [],
        );
        expect(delivered).toEqual(results);
        // A small book is one message.
        if (results.length <= 8) expect(messages).toHaveLength(1);
      }),
      { numRuns: 200 },
    );
  });

  it('passes every other event through as it is, in its place', () => {
    const deep = deepBook();
    const before: RfqEvent = { topic: 'rfq.quote', rfqId: uuid(0) };
    const after: RfqEvent = { topic: 'mm.event', wallet: wallet(1), frame: deep[0]!.frame };
    const messages = fitToBus([before, closedOf(deep), after]);
    expect(messages[0]).toBe(before);
    expect(messages[1]!.topic).toBe('rfq.closed');
    expect(messages[messages.length - 1]).toBe(after);
    expect(messages.length).toBeGreaterThan(3);
  });

  it('publishRfqEvents publishes a deep book without a message over the limit', async () => {
    const bus = createLocalBus();
    const got: unknown[] = [];
    bus.subscribe('rfq.closed', (p) => got.push(p));
    bus.subscribe('mm.event', (p) => got.push(p));
    const deep = deepBook();
    const log = { warn: vi.fn() };
    await publishRfqEvents(bus, [closedOf(deep)], log);
    expect(log.warn).not.toHaveBeenCalled();
    expect(got).toEqual(fitToBus([closedOf(deep)]));
    await bus.close();
  });
});
