// RFQ records -> the wire shapes of spec/openapi.yaml (`Rfq`, `RfqQuote`, `MakerRfq`): amounts as
// decimal strings, addresses in EIP-55 form (the signature covers the address, not its letter case),
// quotes best first and without their makers.
import { getAddress } from 'viem';
import type { MakerRfq, MakerRfqQuote, Rfq, RfqQuote } from '../../../generated/openapi/types.gen.js';
import { microsToWire } from '../../domain/ledger/amounts.js';
import { sortedBestFirst, type QuoteRecord, type RfqWithQuotes } from '../../domain/rfq/records.js';

/** An address in its EIP-55 checksummed form, whatever its case on input. */
export const checksummed = (address: string): string => getAddress(address.toLowerCase());

function quoteToWire(q: QuoteRecord): RfqQuote {
  return {
    quote_id: q.id,
    odds_bps: q.oddsBps,
    max_fill_micros: microsToWire(q.maxFillMicros),
    valid_until_ms: q.validUntilMs,
    status: q.status,
  };
}

export function rfqToWire({ rfq: r, quotes }: RfqWithQuotes): Rfq {
  return {
    rfq_id: r.id,
    status: r.status,
    fill_mode: r.fillMode,
    order: {
      ...r.order,
      taker: checksummed(r.order.taker),
      legs: r.order.legs.map((l) => ({ market_id: l.market_id, direction: l.direction })),
    },
    taker_address: checksummed(r.takerAddress),
    stake_micros: microsToWire(r.stakeMicros),
    filled_stake_micros: microsToWire(r.filledStakeMicros),
    odds_bps: r.oddsBps,
    payout_micros: r.payoutMicros === null ? null : microsToWire(r.payoutMicros),
    quotes_received: r.quotesReceived,
    quote_deadline_ms: r.quoteDeadlineMs,
    expires_at_ms: r.expiresAtMs,
    created_at_ms: r.createdAtMs,
    closed_at_ms: r.closedAtMs,
    position_id: r.positionId,
    close_reason: r.closeReason,
    quotes: sortedBestFirst(quotes).map(quoteToWire),
  };
}

export function makerQuoteToWire(q: QuoteRecord): MakerRfqQuote {
  return { ...quoteToWire(q), client_quote_id: q.clientQuoteId, reason: q.reason, filled_stake_micros: microsToWire(q.filledStakeMicros) };
}

/** `quotes` are the maker's own (getMakerRfq reads only those). */
export function makerRfqToWire({ rfq: r, quotes }: RfqWithQuotes): MakerRfq {
  return { rfq_id: r.id, status: r.status, closed_at_ms: r.closedAtMs, quotes: sortedBestFirst(quotes).map(makerQuoteToWire) };
}
