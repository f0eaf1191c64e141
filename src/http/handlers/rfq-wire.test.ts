import { describe, expect, it } from 'vitest';
import type { QuoteRecord, RfqRecord } from '../../domain/rfq/records.js';
import { makerRfqToWire, rfqToWire } from './rfq-wire.js';

const TAKER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const CHECKSUMMED = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

const rfq = (over: Partial<RfqRecord> = {}): RfqRecord => ({
  id: '0f8e2a9c-4b1d-4c6e-9a7f-3d2b1c0e5f6a',
  takerUserId: 'u1',
  takerAddress: TAKER,
  order: {
    taker: TAKER,
    legs: [{ market_id: 7, direction: 'up' }],
    stake_micros: 2_000_000,
    min_odds_bps: 15_000,
    order_type: 'IOC',
    nonce: 1,
    deadline_ms: 60_000,
  },
  signature: `0x${'1'.repeat(130)}`,
  fillMode: 'best',
  orderType: 'IOC',
  status: 'open',
  stakeMicros: 2_000_000n,
  minOddsBps: 15_000,
  filledStakeMicros: 0n,
  payoutMicros: null,
  oddsBps: null,
  positionId: null,
  closeReason: null,
  quotesReceived: 0,
  quoteDeadlineMs: 1500,
  expiresAtMs: 60_000,
  createdAtMs: 1000,
  closedAtMs: null,
  legs: [{ market_id: 7, asset: 'BTC', duration_secs: 300, window_start_ms: 0, betting_closes_at_ms: 290_000, direction: 'up' }],
  idempotencyKey: 'k',
  ...over,
});

const quote = (id: string, oddsBps: number, receivedAtMs: number, over: Partial<QuoteRecord> = {}): QuoteRecord => ({
  id,
  rfqId: rfq().id,
  makerAddress: '0x00000000000000000000000000000000000000aa',
  makerUserId: 'm1',
  clientQuoteId: null,
  oddsBps,
  maxFillMicros: 9_007_199_254_740_993n, // beyond 2^53: must survive as a decimal string
  validUntilMs: 5000,
  signature: `0x${'2'.repeat(130)}`,
  status: 'live',
  reason: null,
  filledStakeMicros: 0n,
  receivedAtMs,
  ...over,
});

describe('RFQ wire shapes', () => {
  it('amounts as decimal strings, addresses checksummed, quotes best first without their makers', () => {
    const body = rfqToWire({ rfq: rfq(), quotes: [quote('b', 20_000, 2), quote('c', 21_000, 3), quote('a', 20_000, 1)] });
    expect(body.order.taker).toBe(CHECKSUMMED);
    expect(body.taker_address).toBe(CHECKSUMMED);
    expect(body).toMatchObject({
      stake_micros: '2000000',
      filled_stake_micros: '0',
      payout_micros: null,
      odds_bps: null,
      closed_at_ms: null,
      close_reason: null,
    });
    expect(body.quotes.map((q) => q.quote_id)).toEqual(['c', 'a', 'b']);
    expect(body.quotes[0]).toEqual({
      quote_id: 'c',
      odds_bps: 21_000,
      max_fill_micros: '9007199254740993',
      valid_until_ms: 5000,
      status: 'live',
    });
    expect(JSON.stringify(body)).not.toContain('00000000000000000000000000000000000000aa');
  });

  it('a filled RFQ carries its payout, odds and position', () => {
    const body = rfqToWire({
      rfq: rfq({
        status: 'filled',
        filledStakeMicros: 1_500_000n,
        payoutMicros: 3_000_000n,
        oddsBps: 20_000,
        positionId: 'p1',
        closedAtMs: 1600,
      }),
      quotes: [],
    });
    expect(body).toMatchObject({
      status: 'filled',
      filled_stake_micros: '1500000',
      payout_micros: '3000000',
      odds_bps: 20_000,
      position_id: 'p1',
      closed_at_ms: 1600,
    });
  });

  it("the maker's view: state, close time and its quotes with reason and filled stake", () => {
    const body = makerRfqToWire({
      rfq: rfq({ status: 'expired', closeReason: 'no_quotes', closedAtMs: 1500 }),
      quotes: [quote('q', 12_000, 1, { status: 'not_filled', reason: 'below_min_odds', clientQuoteId: 'cq' })],
    });
    expect(body).toEqual({
      rfq_id: rfq().id,
      status: 'expired',
      closed_at_ms: 1500,
      quotes: [
        {
          quote_id: 'q',
          client_quote_id: 'cq',
          odds_bps: 12_000,
          max_fill_micros: '9007199254740993',
          valid_until_ms: 5000,
          status: 'not_filled',
          reason: 'below_min_odds',
          filled_stake_micros: '0',
        },
      ],
    });
  });
});
