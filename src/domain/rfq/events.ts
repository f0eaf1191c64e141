// What an RFQ write tells other processes after it commits (docs/trading.md, "The bus"). The rules return these;
// they never publish (the domain does not know the bus): src/trading/rfq-events.ts does, after commit.
import type { MmpStatusFrame, PositionSettledFrame, QuoteResultFrame, RfqClosedFrame, RfqFrame } from './records.js';

/** A maker's quote_result carried by rfq.closed: for every connection of `wallet` (lowercase). */
export interface QuoteResultDelivery {
  wallet: string;
  frame: QuoteResultFrame;
}

/** Where a frame about an RFQ goes: makers whose subscription matches one of these (asset, duration). */
export interface RfqRoute {
  assets: string[];
  durations: number[];
  /** Each leg's (asset, duration): the exact audience of the RFQ's `rfq` frame. */
  legs: Array<{ asset: string; duration_secs: number }>;
}

export type RfqEvent =
  /** A new RFQ: broadcast the frame to subscribed makers. */
  | { topic: 'rfq.open'; frame: RfqFrame }
  /** A quote was recorded or cancelled on a manual-mode RFQ (or withdrawn): wakes `getRfq?wait_ms` long-polls. */
  | { topic: 'rfq.quote'; rfqId: string }
  /**
   * The RFQ left `open`: `rfq_closed` to the same audience as `rfq`, each quote's `quote_result` to its maker's
   * connections (`results`: one bus message per close, not one per quote), and wakes long-polls.
   */
  | { topic: 'rfq.closed'; frame: RfqClosedFrame; route: RfqRoute; results: QuoteResultDelivery[] }
  /** A frame for every connection of one maker wallet (lowercase), on any process. */
  | { topic: 'mm.event'; wallet: string; frame: QuoteResultFrame | PositionSettledFrame | MmpStatusFrame };

export function routeOf(frame: Pick<RfqFrame, 'legs'>): RfqRoute {
  return {
    assets: [...new Set(frame.legs.map((l) => l.asset))],
    durations: [...new Set(frame.legs.map((l) => l.duration_secs))],
    legs: frame.legs.map((l) => ({ asset: l.asset, duration_secs: l.duration_secs })),
  };
}
