// Market makers' firm quotes (docs/trading.md, "Quotes"): one live quote per (RFQ, maker), a new one
// replaces it; recorded in one autocommit statement with the RFQ row held FOR SHARE, so a quote never lands
// on an RFQ that is closing (src/db/repositories/rfq-quotes.repository.ts recordQuote).
// The signature is checked here, before the statement (invalid_signature): a close never recovers one.
// Rejections are acks (`quote_ack` with an error), never exceptions.
import { isUuid } from '../errors.js';
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { isUniqueViolation } from '../database-errors.js';
import { nowOf, type RfqDeps } from './deps.js';
import type { RfqEvent } from './events.js';
import { quoteResultFrame } from './records.js';
import type { QuoteAckMessage } from '../../../generated/asyncapi/types.js';
import { normalizeSignature, rfqDomainOf, verifyQuoteSignature } from './typed-data.js';
import { repos } from '../../db/repos.js';

/** The `quote_ack` frame (spec/asyncapi.yaml QuoteAckMessage); built only by quoteAck (below). */
export type QuoteAck = QuoteAckMessage;
export type QuoteAckError = NonNullable<QuoteAckMessage['error']>;

/** A `quote` frame's fields (validated against spec/asyncapi.yaml by the stream). */
export interface QuoteInput {
  rfq_id: string;
  odds_bps: number;
  max_fill_micros: number;
  valid_until_ms: number;
  client_quote_id?: string | null | undefined;
  signature: string;
}

/**
 * The one builder of the `quote_ack` frame: the rules' answers here, and the gateway's refusals of a quote or
 * quote_cancel before any rule ran (a field that breaks the schema, the rate limit: src/ws/protocol.ts,
 * src/ws/connection.ts).
 */
export function quoteAck(rfqId: string, clientQuoteId: string | null, r: { quoteId: string } | { error: QuoteAckError }): QuoteAck {
  return 'quoteId' in r
    ? { type: 'quote_ack', rfq_id: rfqId, quote_id: r.quoteId, client_quote_id: clientQuoteId, accepted: true, error: null }
    : { type: 'quote_ack', rfq_id: rfqId, quote_id: null, client_quote_id: clientQuoteId, accepted: false, error: r.error };
}

/**
 * `closesAtMs`: when the RFQ stops taking quotes, as the caller's process heard it on the bus (best mode: its quote
 * deadline; manual mode: its expiry; src/ws/rfq-closing-times.ts). A quote without a client_quote_id handled at or
 * after it is answered `rfq_closed` before its signature is recovered and without its statement, which would refuse
 * it for the same reason (received_at_ms is this `now`). A quote with a client_quote_id takes the statement: it may
 * be the replay of an accepted quote, which gets its first ack.
 */
export async function submitQuote(
  em: Em,
  deps: RfqDeps,
  makerWallet: string,
  q: QuoteInput,
  closesAtMs?: number,
): Promise<{ ack: QuoteAck; events: RfqEvent[] }> {
  const maker = makerWallet.toLowerCase();
  const clientQuoteId = q.client_quote_id ? q.client_quote_id.toLowerCase() : null;
  const reject = (error: QuoteAckError) => ({ ack: quoteAck(q.rfq_id, clientQuoteId, { error }), events: [] });
  const rfqId = q.rfq_id.toLowerCase();
  if (!isUuid(rfqId)) return reject('unknown_rfq');
  if (!Number.isSafeInteger(q.odds_bps) || q.odds_bps < 10_001 || q.odds_bps > 10_000_000) return reject('invalid_odds');
  if (!Number.isSafeInteger(q.max_fill_micros) || q.max_fill_micros < 1) return reject('invalid_odds');
  if (BigInt(q.max_fill_micros) < deps.settings.minFillMicros) return reject('below_min_fill');
  const signature = normalizeSignature(q.signature);
  if (!signature) return reject('invalid_signature');
  const now = nowOf(deps);
  if (q.valid_until_ms <= now) return reject('quote_expired');
  if (closesAtMs !== undefined && now >= closesAtMs && !clientQuoteId) return reject('rfq_closed');
  // About 0.2 ms of CPU (hashing + native recovery), on the process that received the quote, before any SQL.
  const signed = { rfq_id: rfqId, maker, odds_bps: q.odds_bps, max_fill_micros: q.max_fill_micros, valid_until_ms: q.valid_until_ms };
  if (!verifyQuoteSignature(rfqDomainOf(deps.settings), signed, signature).ok) return reject('invalid_signature');

  const attempt = async () => {
    const id = randomUUID();
    // Decided in SQL (RfqQuotesRepository.recordQuote, one statement in src/db/repositories/rfq-quotes.repository.ts):
    // the verdict (a replayed client_quote_id, unknown RFQ, removed maker, tripped protection, RFQ closed or past its
    // deadlines, self-trade, collateral: available against the liability of min(stake, max_fill)), the maker's live
    // quote replaced, valid_until_ms capped at the RFQ's expiry. Each verdict is answered below.
    const rec = await repos(em).rfqQuotes.recordQuote({
      id,
      rfqId,
      makerAddress: maker,
      clientQuoteId,
      oddsBps: q.odds_bps,
      maxFill: BigInt(q.max_fill_micros),
      validUntilMs: q.valid_until_ms, // capped at the RFQ's expires_at_ms by the statement
      signature,
      receivedAtMs: now,
    });
    if (rec.verdict === 'prior') {
      // A replay of the same quote gets the same ack; other content under the id is refused. (valid_until_ms
      // may be stored capped at the RFQ's expiry: the signature, which covers it, then tells.)
      const same =
        rec.prior_rfq_id === rfqId &&
        rec.prior_odds_bps === q.odds_bps &&
        rec.prior_max_fill === BigInt(q.max_fill_micros) &&
        (rec.prior_valid_until_ms === q.valid_until_ms || rec.prior_signature === signature);
      return same ? { ack: quoteAck(rfqId, clientQuoteId, { quoteId: rec.prior_id! }), events: [] } : reject('duplicate_client_quote_id');
    }
    if (rec.verdict !== 'ok') return reject(rec.verdict);
    // Only a manual-mode taker chooses among quotes while the RFQ is open: its long-polls wake on each one. A
    // best-mode RFQ fills at its quote deadline, and its long-polls wake on rfq.closed (one bus message less per fill).
    const events: RfqEvent[] = rec.fill_mode === 'manual' ? [{ topic: 'rfq.quote', rfqId }] : [];
    if (rec.replaced_id) {
      events.push({
        topic: 'mm.event',
        wallet: maker,
        frame: quoteResultFrame(
          { rfqId, quoteId: rec.replaced_id, clientQuoteId: rec.replaced_client_quote_id, oddsBps: rec.replaced_odds_bps! },
          { status: 'not_filled', reason: 'replaced' },
        ),
      });
    }
    return { ack: quoteAck(rfqId, clientQuoteId, { quoteId: id }), events };
  };
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
export async function cancelQuote(
  em: Em,
  makerWallet: string,
  rfqId: string,
  quoteId: string,
): Promise<{ ack: QuoteAck; events: RfqEvent[] }> {
  const id = rfqId.toLowerCase();
  const qid = quoteId.toLowerCase();
  if (!isUuid(id) || !isUuid(qid)) return { ack: quoteAck(rfqId, null, { error: 'quote_not_live' }), events: [] };
  return em.transactional(async (tx) => {
    const r = repos(tx);
    const row = await r.rfq.get(id, 'share'); // as an insert: the quote's status only changes while the RFQ is not closing
    const cancelled = row ? await r.rfqQuotes.cancelQuote(id, qid, makerWallet.toLowerCase()) : undefined;
    if (!cancelled) return { ack: quoteAck(id, null, { error: 'quote_not_live' }), events: [] };
    const events: RfqEvent[] = row?.fill_mode === 'manual' ? [{ topic: 'rfq.quote', rfqId: id }] : [];
    return { ack: quoteAck(id, cancelled.client_quote_id, { quoteId: cancelled.id }), events };
  });
}
