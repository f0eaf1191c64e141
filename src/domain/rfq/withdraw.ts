// Withdrawing every live quote of a maker at once (cancel on disconnect, an MMP trip: docs/market-makers.md): one
// statement, then the events to publish after commit: a `quote_result` `cancelled` for each quote to every
// connection of the maker's wallet, and `rfq.quote` per RFQ so the takers' long-polls look again. The
// quote rows are locked by the update itself; a fill holding them (RFQ row, then quotes) finishes first and
// its quotes are no longer live by then (the same order as an operator's removal).
import type { Em } from '../../db/orm.js';
import { marketMakersRepository } from '../../db/repositories/market-makers.repository.js';
import { db } from '../../db/schema.js';
import type { RfqEvent } from './events.js';

export async function withdrawAllQuotes(
  em: Em,
  makerWallet: string,
  reason: 'disconnected' | 'mmp_triggered',
): Promise<{ withdrawn: number; events: RfqEvent[] }> {
  const maker = makerWallet.toLowerCase();
  const rows = await marketMakersRepository(db(em)).withdrawLiveQuotes(maker);
  const events: RfqEvent[] = rows.map((q) => ({
    topic: 'mm.event',
    wallet: maker,
    frame: {
      type: 'quote_result',
      rfq_id: q.rfq_id,
      quote_id: q.id,
      client_quote_id: q.client_quote_id,
      status: 'cancelled',
      reason,
      position_id: null,
      fill_stake_micros: '0',
      odds_bps: q.odds_bps,
      liability_micros: '0',
      filled_at_ms: null,
    },
  }));
  for (const rfqId of new Set(rows.map((q) => q.rfq_id))) events.push({ topic: 'rfq.quote', rfqId });
  return { withdrawn: rows.length, events };
}
