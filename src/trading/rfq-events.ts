// After commit, RFQ writes tell every process (docs/trading.md, "The bus"): the rules return RfqEvents, this module
// publishes them. The bus payload of each topic is the event object itself (JSON: amounts are strings):
//   rfq.open   {topic, frame: rfq frame}                 -> every gateway sends it to matching makers
//   rfq.quote  {topic, rfqId}                            -> wakes getRfq?wait_ms long-polls
//   rfq.closed {topic, frame: rfq_closed frame, route, results}
//                                                        -> rfq_closed to matching makers, each quote_result to its
//                                                           maker (as many as fit: fitToBus); wakes long-polls
//   mm.event   {topic, wallet, frame}                    -> every connection of that maker wallet
// At-most-once: a failed publish is logged and dropped (the database is the truth; makers reconcile
// with GET /v1/mm/rfq/{rfq_id}). The closer runs closeRfq at an RFQ's due time on the process that
// created it; the sweeper (workers/sweep-rfqs) is the backstop when that process dies.
import type { Logger } from 'pino';
import type { Em } from '../db/orm.js';
import { closeRfq } from '../domain/rfq/api.js';
import type { RfqDeps } from '../domain/rfq/deps.js';
import type { QuoteResultDelivery, RfqEvent } from '../domain/rfq/events.js';
import type { RfqWithQuotes } from '../domain/rfq/records.js';
import type { Bus } from '../bus/bus.js';
import { publishUserEvents } from '../bus/user-events.js';

/**
 * All at once (pipelined): each backend still delivers one publisher's messages in order. Every step that committed
 * also publishes `user.events` (the user channel reads its durable log: src/ws/user-stream.ts).
 */
export async function publishRfqEvents(bus: Bus, events: readonly RfqEvent[], log: Pick<Logger, 'warn'>): Promise<void> {
  await Promise.all([
    publishUserEvents(bus),
    ...fitToBus(events).map((e) =>
      bus.publish(e.topic, e).catch((err: unknown) => {
        log.warn({ err, topic: e.topic }, 'could not publish an RFQ event; subscribers learn it from the database');
      }),
    ),
  ]);
}

/**
 * What rfq.closed may spend on quote_result frames: the bus refuses messages above 7 KiB
 * (MAX_BUS_MESSAGE_BYTES in src/bus/bus.ts); the rest of the message (frame, route of up to RFQ_MAX_LEGS legs,
 * envelope) stays well under the remaining 1.5 KiB. About 14 results fit.
 */
export const RESULTS_BUDGET_BYTES = 5_632;

/**
 * The events as bus messages. One message per close: a close's quote_result frames ride inside its rfq.closed
 * (src/ws/rfq-stream.ts), as many as fit in RESULTS_BUDGET_BYTES; the rest of a book too deep for that follow it as
 * mm.event, in order. Every other event is one message as it is.
 */
export function fitToBus(events: readonly RfqEvent[]): RfqEvent[] {
  return events.flatMap((e) => (e.topic === 'rfq.closed' ? packResults(e) : [e]));
}

function packResults(closed: Extract<RfqEvent, { topic: 'rfq.closed' }>): RfqEvent[] {
  const results: QuoteResultDelivery[] = [];
  const overflow: RfqEvent[] = [];
  let bytes = 0;
  for (const delivery of closed.results) {
    bytes += JSON.stringify(delivery).length + 1;
    if (bytes <= RESULTS_BUDGET_BYTES) results.push(delivery);
    else overflow.push({ topic: 'mm.event', ...delivery });
  }
  return [{ ...closed, results }, ...overflow];
}

export interface RfqCloser {
  /**
   * closeRfq now, and publish what changed (not awaited: the caller answers the taker while the events go
   * out). Never throws: a failure is logged (the sweeper retries).
   */
  close(rfqId: string): Promise<RfqWithQuotes | null>;
  /** Closes at `atMs` (a timer on this process); returns when it has run. */
  closeAt(rfqId: string, atMs: number): Promise<RfqWithQuotes | null>;
  /** Cancels pending timers (shutdown); the sweeper closes what they would have. */
  stop(): void;
}

export function createRfqCloser(deps: { forkDb: () => Em; bus: Bus; rfq: RfqDeps; log: Logger }): RfqCloser {
  const timers = new Map<NodeJS.Timeout, () => void>();
  let stopped = false;
  async function close(rfqId: string): Promise<RfqWithQuotes | null> {
    try {
      const r = await closeRfq(deps.forkDb(), deps.rfq, rfqId);
      if (r.changed) void publishRfqEvents(deps.bus, r.events, deps.log);
      return r.rfq;
    } catch (err) {
      deps.log.error({ err, rfq_id: rfqId }, 'closing an RFQ failed; the sweeper will retry');
      return null;
    }
  }
  return {
    close,
    closeAt(rfqId, atMs) {
      const clock = deps.rfq.now ?? Date.now;
      return new Promise((resolve) => {
        // A timer can fire a millisecond early (its delay is rounded): then the close finds the RFQ not yet
        // due and leaves it open. Arm again until the due time has passed, so a best-mode POST always answers
        // the terminal RFQ.
        const arm = () => {
          if (stopped) return resolve(null);
          const t = setTimeout(
            () => {
              timers.delete(t);
              if (clock() < atMs) return arm();
              void close(rfqId).then(resolve);
            },
            Math.max(0, atMs - clock()),
          );
          timers.set(t, () => resolve(null));
        };
        arm();
      });
    },
    stop() {
      stopped = true;
      for (const [t, cancel] of timers) {
        clearTimeout(t);
        cancel();
      }
      timers.clear();
    },
  };
}
