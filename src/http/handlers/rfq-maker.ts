// The market maker's RFQ route: reconcile one RFQ and its own quotes after a disconnect (spec/openapi.yaml getMakerRfq).
// The spec's security (marketMakerBearer) already answers 403 to a user session.
import { Unauthorized } from '../../domain/errors.js';
import { getMakerRfq } from '../../domain/rfq/api.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { makerRfqToWire } from './rfq-wire.js';

export function rfqMakerHandlers(): HandlersFor<'getMakerRfq'> {
  return {
    getMakerRfq: async ({ params }, { db, auth }) => {
      if (auth.kind !== 'market_maker') throw new Unauthorized();
      const r = await getMakerRfq(db, auth.walletAddress, params.rfq_id);
      return { status: 200, body: makerRfqToWire(r), headers: NO_STORE };
    },
  };
}
