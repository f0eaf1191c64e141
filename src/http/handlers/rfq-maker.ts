// The market maker's RFQ routes: reconcile one RFQ and its own quotes after a disconnect (spec/openapi.yaml getMakerRfq),
// and list its live quotes on every RFQ (GET /v1/mm/quotes, docs/market-makers.md "Reconciling").
// The spec's security (marketMakerBearer) already answers 403 to a user session.
import { Unauthorized } from '../../domain/errors.js';
import { getMakerRfq, makerLiveQuotes } from '../../domain/rfq/api.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { makerQuoteToWire, makerRfqToWire } from './rfq-wire.js';

export function rfqMakerHandlers(): HandlersFor<'getMakerRfq' | 'listMakerQuotes'> {
  return {
    getMakerRfq: async ({ params }, { db, auth }) => {
      if (auth.kind !== 'market_maker') throw new Unauthorized();
      const r = await getMakerRfq(db, auth.walletAddress, params.rfq_id);
      return { status: 200, body: makerRfqToWire(r), headers: NO_STORE };
    },
    listMakerQuotes: async ({ query }, { db, auth }) => {
      if (auth.kind !== 'market_maker') throw new Unauthorized();
      const quotes = await makerLiveQuotes(db, auth.walletAddress, query.limit ?? 1000);
      return {
        status: 200,
        body: { quotes: quotes.map((q) => ({ rfq_id: q.rfqId, quote: makerQuoteToWire(q) })) },
        headers: NO_STORE,
      };
    },
  };
}
