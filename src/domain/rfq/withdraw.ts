// Withdrawing every live quote of a maker at once (cancel on disconnect, an MMP trip: docs/market-makers.md): one
// statement, then the events to publish after commit: a `quote_result` `cancelled` for each quote to every
// connection of the maker's wallet, and `rfq.quote` per RFQ so the takers' long-polls look again. The
// quote rows are locked by the update itself; a fill holding them (RFQ row, then quotes) finishes first and
// its quotes are no longer live by then (the same order as an operator's removal).
import type { Em } from '../../db/orm.js';
import type { RfqEvent } from './events.js';
import { quoteResultFrame } from './records.js';
import { repos } from '../../db/repos.js';

export async function withdrawAllQuotes(
  em: Em,
  makerWallet: string,
  reason: 'disconnected' | 'mmp_triggered',
): Promise<{ withdrawn: number; events: RfqEvent[] }> {
  const maker = makerWallet.toLowerCase();
  const rows = await repos(em).marketMakers.withdrawLiveQuotes(maker);
  const events: RfqEvent[] = rows.map((q) => ({
    topic: 'mm.event',
    wallet: maker,
    frame: quoteResultFrame(
      { rfqId: q.rfq_id, quoteId: q.id, clientQuoteId: q.client_quote_id, oddsBps: q.odds_bps },
      { status: 'cancelled', reason },
    ),
  }));
  for (const rfqId of new Set(rows.map((q) => q.rfq_id))) events.push({ topic: 'rfq.quote', rfqId });
  return { withdrawn: rows.length, events };
}
