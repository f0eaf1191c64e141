// Properties of planClose over random books (close-plan.ts): money is conserved (the stake released plus the
// stake filled is the stake), every planned ledger posting balances to zero, the position pays at least
// filled x min_odds / 10000, no maker is asked for more than its balance, and the plan's events carry one
// quote_result per quote whose status changes, to that quote's maker.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOOK_NOW, orderFields, quoteArb } from '../../testing/rfq-books.js';
import { planClose, type CloseHow } from './close-plan.js';
import type { QuoteRecord, RfqRecord } from './records.js';

const NOW = BOOK_NOW;
const TAKER = 'taker-user';

const caseArb = fc.record({
  ...orderFields,
  quotes: fc.oneof(fc.array(quoteArb, { maxLength: 8 }), fc.array(quoteArb, { minLength: 10, maxLength: 40 })),
  how: fc.constantFrom('fill' as const, 'deadline' as const, 'betting_closed' as const, 'cancel' as const),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function rfqOf(c: Case): RfqRecord {
  return {
    id: 'rfq-1',
    takerUserId: TAKER,
    takerAddress: '0xtaker',
    order: {
      taker: '0xtaker',
      legs: [{ market_id: 1, direction: 'up' }],
      stake_micros: Number(c.stakeMicros),
      min_odds_bps: c.minOddsBps,
      order_type: c.orderType,
      nonce: 1,
      deadline_ms: NOW + 30_000,
    },
    signature: '0x',
    fillMode: 'best',
    orderType: c.orderType,
    status: 'open',
    stakeMicros: c.stakeMicros,
    minOddsBps: c.minOddsBps,
    filledStakeMicros: 0n,
    payoutMicros: null,
    oddsBps: null,
    positionId: null,
    closeReason: null,
    quotesReceived: c.quotes.length,
    quoteDeadlineMs: NOW - 1,
    expiresAtMs: NOW + 30_000,
    createdAtMs: NOW - 1000,
    closedAtMs: null,
    legs: [
      {
        market_id: 1,
        asset: 'BTC',
        duration_secs: 300,
        window_start_ms: NOW - 60_000,
        betting_closes_at_ms: NOW + 60_000,
        direction: 'up',
      },
    ],
    idempotencyKey: null,
  };
}

describe('planClose: properties', () => {
  it('conserves money, balances every posting, pays at least the signed minimum odds, and tells each changed quote`s maker', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const quotes: QuoteRecord[] = c.quotes.map((q, i) => ({
          id: `q${i}`,
          rfqId: 'rfq-1',
          makerAddress: `0xmaker${i}`,
          makerUserId: `maker-${i}`,
          clientQuoteId: null,
          oddsBps: q.oddsBps,
          maxFillMicros: q.maxFillMicros,
          validUntilMs: q.validUntilMs,
          signature: '0x',
          status: 'live',
          reason: null,
          filledStakeMicros: 0n,
          receivedAtMs: q.receivedAtMs,
        }));
        const balances = new Map(c.quotes.map((q, i) => [`maker-${i}`, q.balance]));
        const how: CloseHow =
          c.how === 'fill'
            ? { kind: 'fill', candidates: quotes, others: [] }
            : c.how === 'cancel'
              ? { kind: 'cancel', live: quotes }
              : { kind: 'expire', reason: c.how, live: quotes };
        let n = 0;
        const plan = planClose({
          rfq: rfqOf(c),
          all: quotes,
          how,
          balances,
          nowMs: NOW,
          limits: { maxPayoutMicros: c.maxPayoutMicros, minFillMicros: c.minFillMicros },
          newId: () => `id-${++n}`,
        });

        // Every posting balances to zero, and touches no account with nothing.
        for (const p of plan.postings) {
          expect(p.entries.reduce((s, e) => s + e.amount, 0n)).toBe(0n);
          expect(p.entries.every((e) => e.amount !== 0n)).toBe(true);
        }
        // Money conserved: what goes back to the taker's available plus what is filled is the stake.
        const released = plan.postings
          .filter((p) => p.kind === 'rfq_release')
          .flatMap((p) => p.entries)
          .filter((e) => 'userId' in e.account && e.account.userId === TAKER && e.account.kind === 'user_available')
          .reduce((s, e) => s + e.amount, 0n);
        expect(released + plan.close.filledStake).toBe(c.stakeMicros);

        if (plan.close.status === 'filled') {
          expect(c.how).toBe('fill');
          const pos = plan.position!;
          expect(pos.stake).toBe(plan.close.filledStake);
          expect(pos.fills.reduce((s, f) => s + f.stake, 0n)).toBe(pos.stake);
          expect(pos.fills.reduce((s, f) => s + f.payout, 0n)).toBe(pos.payout);
          // Rounded in the taker's favour: never below the signed minimum odds.
          expect(pos.payout * 10_000n >= pos.stake * BigInt(c.minOddsBps)).toBe(true);
          expect(plan.close.oddsBps! >= c.minOddsBps).toBe(true);
          // What each maker reserves is its liability, within its balance.
          for (const [user, liability] of plan.liabilities) expect(liability <= (balances.get(user) ?? 0n)).toBe(true);
        } else {
          expect(plan.position).toBeNull();
          expect(plan.close.filledStake).toBe(0n);
          expect(plan.close.status).toBe(c.how === 'cancel' ? 'cancelled' : 'expired');
        }

        // The RFQ as read afterwards, and one quote_result per changed quote inside the one rfq.closed event,
        // however deep the book (fitting them to the bus's message limit is the publisher's: src/trading/rfq-events.test.ts).
        expect(plan.after.rfq.status).toBe(plan.close.status);
        expect(plan.after.quotes.every((q) => q.status !== 'live')).toBe(true);
        expect(plan.events.map((e) => e.topic)).toEqual(['rfq.closed']);
        const results = plan.events.flatMap((e) => (e.topic === 'rfq.closed' ? e.results : []));
        expect(results.map((r) => r.frame.quote_id).sort()).toEqual(quotes.map((q) => q.id).sort());
        for (const r of results) expect(r.wallet).toBe(`0xmaker${r.frame.quote_id.slice(1)}`);
      }),
      { numRuns: 300 },
    );
  });
});
