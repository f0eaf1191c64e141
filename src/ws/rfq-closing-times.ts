// When each open RFQ stops taking quotes, as this process learned it from the bus (rfq-fanout.ts): the `rfq`
// frame's quote_deadline_ms in best mode, its expires_at_ms in manual mode. The quote intake (rfq-intake.ts)
// hands it to the quote rule (src/domain/rfq/quotes.ts submitQuote), which answers a quote handled at or after
// that time `rfq_closed` without recovering its signature or running its statement: the statement would refuse
// it for the same reason (its received_at_ms, this process's clock, past the same deadline). Under overload
// those quotes were the wasted work of issue 38: one round of bench:rfq with four makers refused 3,892 of them,
// each a full statement on a saturated PostgreSQL (docs/trading.md, "Under overload").
//
// The bus is at-most-once: an RFQ this process did not hear of has no entry, and its quotes take the usual
// path. An entry leaves on the RFQ's rfq.closed, or once its expiry has passed (pruned as entries are added).
import type { RfqMessage } from '../../generated/asyncapi/types.js';

/** Entries kept at most; past it, the oldest go first (an RFQ missing here only loses the shortcut). */
export const MAX_RFQ_CLOSING_TIMES = 100_000;
const PRUNE_EVERY = 1_024;

export class RfqClosingTimes {
  /** rfq_id (lowercase) -> [closes taking quotes at (ms), expires at (ms)], in insertion order. */
  private readonly byRfq = new Map<string, [number, number]>();
  private added = 0;

  constructor(private readonly max = MAX_RFQ_CLOSING_TIMES) {}

  /** An `rfq` frame went out on the bus: the RFQ takes quotes until this time. */
  opened(frame: Pick<RfqMessage, 'rfq_id' | 'fill_mode' | 'quote_deadline_ms' | 'expires_at_ms'>, nowMs = Date.now()): void {
    const closes = frame.fill_mode === 'best' ? Math.min(frame.quote_deadline_ms, frame.expires_at_ms) : frame.expires_at_ms;
    if (++this.added % PRUNE_EVERY === 0) this.prune(nowMs);
    if (this.byRfq.size >= this.max) this.byRfq.delete(this.byRfq.keys().next().value!);
    this.byRfq.set(frame.rfq_id.toLowerCase(), [closes, frame.expires_at_ms]);
  }

  /** The RFQ closed (rfq.closed): nothing more to know about it. */
  closed(rfqId: string): void {
    this.byRfq.delete(rfqId.toLowerCase());
  }

  /** When the RFQ stops taking quotes, if this process heard of it and it has not closed. */
  closesAt(rfqId: string): number | undefined {
    return this.byRfq.get(rfqId.toLowerCase())?.[0];
  }

  get size(): number {
    return this.byRfq.size;
  }

  /** Drops the entries whose RFQ has expired (its rfq.closed was missed, or is still to come from the sweeper). */
  private prune(nowMs: number): void {
    for (const [id, [, expires]] of this.byRfq) if (expires <= nowMs) this.byRfq.delete(id);
  }
}
