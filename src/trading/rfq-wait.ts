// Long-poll waiters of `GET /v1/rfq/{rfq_id}?wait_ms=` (docs/trading.md, "The bus"): the orchestration folder's one
// waiter abstraction (src/trading/waiters.ts) keyed by RFQ id and woken by `rfq.quote` and `rfq.closed`. Capped
// per process (past the cap a request answers at once and the client polls again) and per user (fair shares:
// one user holding its cap of long-polls is refused more, 503 TOO_MANY_WAITERS, while every other user's
// long-polls wait as usual).
import type { Bus } from '../bus/bus.js';
import { createWaiters, type WaitOutcome, type Waiter, type Waiters } from './waiters.js';

export type { WaitOutcome };

/** Resolves at the first change of the RFQ since registration, after `ms`, at once when the cap was reached. */
export type RfqWaiter = Waiter;

export interface RfqWaiters extends Waiters {
  /** `owner`: the user the waiter counts against (its per-user cap). */
  register(rfqId: string, owner: string): RfqWaiter;
}

export const DEFAULT_MAX_WAITERS = 1000;
export const DEFAULT_MAX_WAITERS_PER_USER = 100;

/** The RFQ id a bus payload names (rfq.quote `{rfqId}`, rfq.closed `{frame: {rfq_id}}`), else undefined. */
export function rfqIdOf(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const p = payload as { rfqId?: unknown; frame?: { rfq_id?: unknown } };
  if (typeof p.rfqId === 'string') return p.rfqId;
  if (typeof p.frame?.rfq_id === 'string') return p.frame.rfq_id;
  return undefined;
}

export function createRfqWaiters(bus: Pick<Bus, 'subscribe'>, opts: { max?: number; maxPerUser?: number } = {}): RfqWaiters {
  return createWaiters(bus, {
    topics: ['rfq.quote', 'rfq.closed'],
    keyOf: rfqIdOf,
    max: opts.max ?? DEFAULT_MAX_WAITERS,
    maxPerOwner: opts.maxPerUser ?? DEFAULT_MAX_WAITERS_PER_USER,
  });
}
