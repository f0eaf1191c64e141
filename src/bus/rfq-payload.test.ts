// rfqEventOf, the one way from a bus payload back to a typed RFQ event: the events the rules build pass (after
// the JSON round trip the bus does); a frame that breaks its schema, a frame on the wrong topic, an rfq.closed
// without its route and an mm.event without its wallet are refused.
import { describe, expect, it } from 'vitest';
import { routeOf, type RfqEvent } from '../domain/rfq/events.js';
import { quoteResultFrame, type RfqFrame } from '../domain/rfq/records.js';
import { quoteAck } from '../domain/rfq/quotes.js';
import { validateQuoteAck, validateQuoteResult } from '../../generated/asyncapi/validators.js';
import { rfqEventOf } from './rfq-payload.js';

const RFQ_ID = '0f8e2a9c-4b1d-4c6e-9a7f-3d2b1c0e5f6a';
const QUOTE_ID = '5b0f3c9e-8f1a-4d2b-9c3e-7a6d5e4f3b2a';
const rfq: RfqFrame = {
  type: 'rfq',
  rfq_id: RFQ_ID,
  created_at_ms: 1767225600000,
  quote_deadline_ms: 1767225600500,
  expires_at_ms: 1767225630000,
  fill_mode: 'best',
  order_type: 'FOK',
  stake_micros: '10000000',
  taker_address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  legs: [
    {
      market_id: 1042,
      asset: 'BTC',
      duration_secs: 300,
      window_start_ms: 1767225600000,
      betting_closes_at_ms: 1767225890000,
      direction: 'up',
    },
  ],
};
const filled = quoteResultFrame(
  { rfqId: RFQ_ID, quoteId: QUOTE_ID, clientQuoteId: null, oddsBps: 19_500 },
  {
    status: 'filled',
    positionId: '9d1c6a4e-2f3b-4c5d-8e7f-0a1b2c3d4e5f',
    fillMicros: 10_000_000n,
    liabilityMicros: 9_500_000n,
    filledAtMs: 1767225600512,
  },
);
const overTheBus = (e: RfqEvent): unknown => JSON.parse(JSON.stringify(e));

describe('rfqEventOf', () => {
  it('passes the events the rules publish, typed', () => {
    const open = rfqEventOf('rfq.open', overTheBus({ topic: 'rfq.open', frame: rfq }));
    expect(open).toEqual({ ok: true, event: { topic: 'rfq.open', frame: rfq } });

    const closedEvent: RfqEvent = {
      topic: 'rfq.closed',
      frame: { type: 'rfq_closed', rfq_id: RFQ_ID, status: 'filled', closed_at_ms: 1767225600512 },
      route: routeOf(rfq),
      results: [{ wallet: '0xabc', frame: filled }],
    };
    expect(rfqEventOf('rfq.closed', overTheBus(closedEvent))).toEqual({ ok: true, event: closedEvent });

    const mm = rfqEventOf('mm.event', overTheBus({ topic: 'mm.event', wallet: '0xabc', frame: filled }));
    expect(mm.ok && mm.event.wallet === '0xabc' && mm.event.frame.type).toBe('quote_result');
  });

  it('refuses a frame that breaks its schema, or is not what the topic carries', () => {
    const broken = { topic: 'rfq.open', frame: { ...rfq, stake_micros: 10_000_000 } };
    expect(rfqEventOf('rfq.open', broken)).toMatchObject({ ok: false, why: expect.stringContaining('/stake_micros') });
    expect(rfqEventOf('rfq.open', { topic: 'rfq.open', frame: { ...rfq, type: 'rfq_sent' } }).ok).toBe(false);
    expect(rfqEventOf('mm.event', { topic: 'mm.event', wallet: '0xabc', frame: rfq })).toEqual({
      ok: false,
      why: 'a rfq frame on mm.event',
    });
    expect(rfqEventOf('rfq.open', null).ok).toBe(false);
    const closed = {
      topic: 'rfq.closed',
      frame: { type: 'rfq_closed', rfq_id: RFQ_ID, status: 'filled', closed_at_ms: 1 },
      route: routeOf(rfq),
    };
    expect(rfqEventOf('rfq.closed', { ...closed, results: [{ wallet: '0xabc', frame: rfq }] }).ok).toBe(false);
    expect(rfqEventOf('rfq.closed', { ...closed, results: [{ frame: filled }] }).ok).toBe(false);
    expect(rfqEventOf('rfq.closed', closed).ok).toBe(false);
    expect(rfqEventOf('rfq.open', { topic: 'rfq.open' }).ok).toBe(false);
  });

  it('refuses an rfq.closed without its route and an mm.event without its wallet', () => {
    const frame = { type: 'rfq_closed', rfq_id: RFQ_ID, status: 'expired', closed_at_ms: 1 };
    expect(rfqEventOf('rfq.closed', { topic: 'rfq.closed', frame })).toEqual({ ok: false, why: 'rfq.closed without a route' });
    expect(
      rfqEventOf('rfq.closed', { topic: 'rfq.closed', frame, route: { assets: ['BTC'], durations: [300], legs: [{ asset: 'BTC' }] } }).ok,
    ).toBe(false);
    expect(rfqEventOf('mm.event', { topic: 'mm.event', frame: filled })).toEqual({ ok: false, why: 'mm.event without a wallet' });
  });
});

describe('the frame builders', () => {
  it('quoteResultFrame: "0" and null unless filled; every outcome matches the schema', () => {
    expect(filled).toMatchObject({
      status: 'filled',
      reason: null,
      fill_stake_micros: '10000000',
      liability_micros: '9500000',
      filled_at_ms: 1767225600512,
    });
    const replaced = quoteResultFrame(
      { rfqId: RFQ_ID, quoteId: QUOTE_ID, clientQuoteId: QUOTE_ID, oddsBps: 19_500 },
      { status: 'not_filled', reason: 'replaced' },
    );
    expect(replaced).toEqual({
      type: 'quote_result',
      rfq_id: RFQ_ID,
      quote_id: QUOTE_ID,
      client_quote_id: QUOTE_ID,
      status: 'not_filled',
      reason: 'replaced',
      position_id: null,
      fill_stake_micros: '0',
      odds_bps: 19_500,
      liability_micros: '0',
      filled_at_ms: null,
    });
    for (const f of [filled, replaced]) expect(validateQuoteResult(f), JSON.stringify(validateQuoteResult.errors)).toBe(true);
  });

  it('quoteAck: accepted with its quote id, or refused with its error and no quote id', () => {
    const ok = quoteAck(RFQ_ID, null, { quoteId: QUOTE_ID });
    const refused = quoteAck(RFQ_ID, QUOTE_ID, { error: 'rate_limited' });
    expect(ok).toEqual({ type: 'quote_ack', rfq_id: RFQ_ID, quote_id: QUOTE_ID, client_quote_id: null, accepted: true, error: null });
    expect(refused).toEqual({
      type: 'quote_ack',
      rfq_id: RFQ_ID,
      quote_id: null,
      client_quote_id: QUOTE_ID,
      accepted: false,
      error: 'rate_limited',
    });
    for (const f of [ok, refused]) expect(validateQuoteAck(f)).toBe(true);
  });
});
