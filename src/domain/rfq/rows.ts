// Database rows of rfqs / rfq_quotes (int8 already parsed by src/db/repositories/rfq.repository.ts) as the records the rules and the wire use.
import type { QuoteRow, RfqRow } from '../../db/repositories/rfq.repository.js';
import type { QuoteReason, QuoteRecord, RfqLegInfo, RfqRecord, RfqWithQuotes } from './records.js';
import { compareQuoteRecords } from './records.js';

export function rfqFromRow(r: RfqRow, quotesReceived: number): RfqRecord {
  const legs = (typeof r.legs === 'string' ? JSON.parse(r.legs) : r.legs) as RfqLegInfo[];
  const stake = r.stake;
  return {
    id: r.id,
    takerUserId: r.taker_user_id,
    takerAddress: r.taker_address,
    order: {
      taker: r.taker_address,
      legs: legs.map((l) => ({ market_id: l.market_id, direction: l.direction })),
      stake_micros: Number(stake),
      min_odds_bps: r.min_odds_bps,
      order_type: r.order_type,
      nonce: r.nonce,
      deadline_ms: r.deadline_ms,
    },
    signature: r.signature,
    fillMode: r.fill_mode,
    orderType: r.order_type,
    status: r.status,
    stakeMicros: stake,
    minOddsBps: r.min_odds_bps,
    filledStakeMicros: r.filled_stake,
    payoutMicros: r.payout,
    oddsBps: r.odds_bps,
    positionId: r.position_id,
    closeReason: r.close_reason,
    quotesReceived,
    quoteDeadlineMs: r.quote_deadline_ms,
    expiresAtMs: r.expires_at_ms,
    createdAtMs: r.created_at_ms,
    closedAtMs: r.closed_at_ms,
    legs,
    idempotencyKey: r.idempotency_key,
  };
}

export function quoteFromRow(q: QuoteRow): QuoteRecord {
  return {
    id: q.id,
    rfqId: q.rfq_id,
    makerAddress: q.maker_address,
    makerUserId: q.maker_user_id,
    clientQuoteId: q.client_quote_id,
    oddsBps: q.odds_bps,
    maxFillMicros: q.max_fill,
    validUntilMs: q.valid_until_ms,
    signature: q.signature,
    status: q.status,
    reason: q.reason as QuoteReason | null,
    filledStakeMicros: q.filled_stake,
    receivedAtMs: q.received_at_ms,
  };
}

/** RFQs with their quotes (best first); quotesReceived counts every quote recorded. */
export function withQuotes(rows: readonly RfqRow[], quoteRows: readonly QuoteRow[]): RfqWithQuotes[] {
  const byRfq = new Map<string, QuoteRecord[]>();
  for (const q of quoteRows) {
    const list = byRfq.get(q.rfq_id) ?? [];
    list.push(quoteFromRow(q));
    byRfq.set(q.rfq_id, list);
  }
  return rows.map((r) => {
    const quotes = (byRfq.get(r.id) ?? []).sort(compareQuoteRecords);
    return { rfq: rfqFromRow(r, quotes.length), quotes };
  });
}
