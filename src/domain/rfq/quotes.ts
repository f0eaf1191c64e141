// Market makers' firm quotes (rfq-design 3.1, 3.4, 3.11): one live quote per (RFQ, maker), a new one
// replaces it; recorded with the RFQ row held FOR SHARE, so a quote never lands on an RFQ that is closing.
// The signature is stored, not checked here: it is verified only if the quote is chosen for a fill.
// Rejections are acks (`quote_ack` with an error), never exceptions.
import { isUuid } from '../errors.js';
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { rfqRepository } from '../../db/repositories/rfq.repository.js';
import { db } from '../../db/schema.js';
import { isUniqueViolation } from '../database-errors.js';
import { microsFromDb } from '../ledger/amounts.js';
import { payoutFor } from './allocate.js';
import { nowOf, type RfqDeps } from './deps.js';
import type { RfqEvent } from './events.js';
import { quoteFromRow, rfqFromRow } from './rows.js';
import { normalizeSignature } from './typed-data.js';

export type QuoteAckError =
  | 'unknown_rfq'
  | 'rfq_closed'
  | 'invalid_odds'
  | 'quote_expired'
  | 'self_trade'
  | 'insufficient_collateral'
  | 'duplicate_client_quote_id'
  | 'quote_not_live'
  | 'rate_limited'
  | 'unknown_market_maker'
  | 'mmp_triggered';

export interface QuoteAck {
  type: 'quote_ack';
  rfq_id: string;
  quote_id: string | null;
  client_quote_id: string | null;
  accepted: boolean;
  error: QuoteAckError | null;
}

/** A `quote` frame's fields (validated against spec/asyncapi.yaml by the stream). */
export interface QuoteInput {
  rfq_id: string;
  odds_bps: number;
  max_fill_micros: number;
  valid_until_ms: number;
  client_quote_id?: string | null | undefined;
  signature: string;
}

export function quoteAck(rfqId: string, clientQuoteId: string | null, r: { quoteId: string } | { error: QuoteAckError }): QuoteAck {
  return 'quoteId' in r
    ? { type: 'quote_ack', rfq_id: rfqId, quote_id: r.quoteId, client_quote_id: clientQuoteId, accepted: true, error: null }
    : { type: 'quote_ack', rfq_id: rfqId, quote_id: null, client_quote_id: clientQuoteId, accepted: false, error: r.error };
}

export async function submitQuote(em: Em, deps: RfqDeps, makerWallet: string, q: QuoteInput): Promise<{ ack: QuoteAck; events: RfqEvent[] }> {
  const maker = makerWallet.toLowerCase();
  const clientQuoteId = q.client_quote_id ? q.client_quote_id.toLowerCase() : null;
  const reject = (error: QuoteAckError) => ({ ack: quoteAck(q.rfq_id, clientQuoteId, { error }), events: [] });
  const rfqId = q.rfq_id.toLowerCase();
  if (!isUuid(rfqId)) return reject('unknown_rfq');
  if (!Number.isSafeInteger(q.odds_bps) || q.odds_bps < 10_001 || q.odds_bps > 10_000_000) return reject('invalid_odds');
  const signature = normalizeSignature(q.signature);
  if (!signature || !Number.isSafeInteger(q.max_fill_micros) || q.max_fill_micros < 1) return reject('invalid_odds');
  const now = nowOf(deps);
  if (q.valid_until_ms <= now) return reject('quote_expired');

  const attempt = () =>
    em.transactional(async (tx) => {
      const repo = rfqRepository(db(tx));
      if (clientQuoteId) {
        const earlier = await repo.byClientQuoteId(maker, clientQuoteId);
        if (earlier) {
          const e = quoteFromRow(earlier);
          const same =
            e.rfqId === rfqId && e.oddsBps === q.odds_bps && e.maxFillMicros === BigInt(q.max_fill_micros) && e.validUntilMs === q.valid_until_ms;
          // A replay of the same quote gets the same ack; other content under the id is refused.
          return same ? { ack: quoteAck(rfqId, clientQuoteId, { quoteId: e.id }), events: [] } : reject('duplicate_client_quote_id');
        }
      }
      // The RFQ held FOR SHARE, with the maker's user and a cheap unlocked read of its available balance
      // (the fill checks collateral again under lock).
      const row = await repo.getForQuote(rfqId, maker);
      if (!row) return reject('unknown_rfq');
      if (row.maker_removed) return reject('unknown_market_maker');
      if (row.maker_mmp_tripped) return reject('mmp_triggered');
      const r = rfqFromRow(row, 0);
      if (r.status !== 'open' || now >= r.expiresAtMs || (r.fillMode === 'best' && now >= r.quoteDeadlineMs)) return reject('rfq_closed');
      if (r.takerAddress === maker) return reject('self_trade');
      if (!row.maker_user_id) return reject('insufficient_collateral');
      const fill = r.stakeMicros < BigInt(q.max_fill_micros) ? r.stakeMicros : BigInt(q.max_fill_micros);
      const liability = payoutFor(fill, q.odds_bps) - fill;
      if (microsFromDb(row.maker_available ?? '0') < liability) return reject('insufficient_collateral');

      const replaced = await repo.replaceLive(rfqId, maker);
      const id = randomUUID();
      await repo.insertQuote({
        id,
        rfqId,
        makerAddress: maker,
        makerUserId: row.maker_user_id,
        clientQuoteId,
        oddsBps: q.odds_bps,
        maxFill: BigInt(q.max_fill_micros),
        validUntilMs: q.valid_until_ms,
        signature,
        receivedAtMs: now,
      });
      const events: RfqEvent[] = [{ topic: 'rfq.quote', rfqId }];
      if (replaced) {
        events.push({
          topic: 'mm.event',
          wallet: maker,
          frame: {
            type: 'quote_result',
            rfq_id: rfqId,
            quote_id: replaced.id,
            client_quote_id: replaced.client_quote_id,
            status: 'not_filled',
            reason: 'replaced',
            position_id: null,
            fill_stake_micros: '0',
            odds_bps: replaced.odds_bps,
            liability_micros: '0',
            filled_at_ms: null,
          },
        });
      }
      return { ack: quoteAck(rfqId, clientQuoteId, { quoteId: id }), events };
    });
  try {
    return await attempt();
  } catch (err) {
    // Two quotes of one maker on one RFQ at once: the later commit found the earlier one live and
    // violated the one-live-quote index; once the earlier has committed, running again replaces it.
    // The same client_quote_id twice at once: running again answers the replay or the duplicate.
    if (isUniqueViolation(err, 'rfq_quotes_live_key') || isUniqueViolation(err, 'rfq_quotes_client_quote_key')) return attempt();
    throw err;
  }
}

/** Cancels the maker's live quote; ack error quote_not_live when it is not live. */
export async function cancelQuote(em: Em, makerWallet: string, rfqId: string, quoteId: string): Promise<{ ack: QuoteAck; events: RfqEvent[] }> {
  const id = rfqId.toLowerCase();
  const qid = quoteId.toLowerCase();
  if (!isUuid(id) || !isUuid(qid)) return { ack: quoteAck(rfqId, null, { error: 'quote_not_live' }), events: [] };
  return em.transactional(async (tx) => {
    const repo = rfqRepository(db(tx));
    const row = await repo.get(id, 'share'); // as an insert: the quote's status only changes while the RFQ is not closing
    const cancelled = row ? await repo.cancelQuote(id, qid, makerWallet.toLowerCase()) : undefined;
    if (!cancelled) return { ack: quoteAck(id, null, { error: 'quote_not_live' }), events: [] };
    return { ack: quoteAck(id, cancelled.client_quote_id, { quoteId: cancelled.id }), events: [{ topic: 'rfq.quote', rfqId: id }] };
  });
}
