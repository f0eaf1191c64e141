// The free semantic checks of a taker order (docs/getting-started.md "Trading as a taker", after the schema, before any database
// lookup): duplicate markets, stake and payout bounds, the deadline bounds of docs/trading.md. Pure.
import { Unprocessable } from '../errors.js';
import { payoutFor } from './allocate.js';
import type { RfqOrderJson } from './typed-data.js';
import { PROCESSING_BUFFER_MS } from '../../constants.js';

export type FillMode = 'best' | 'manual';

export interface RfqLimits {
  minStakeMicros: bigint;
  maxStakeMicros: bigint;
  maxPayoutMicros: bigint;
  maxLegs: number;
  quoteWindowMs: number;
  maxDeadlineMs: number;
}

export interface OrderProblemDetail {
  in: 'body';
  path: string;
  message: string;
}

export interface OrderProblem {
  code: 'INVALID_ORDER' | 'ORDER_EXPIRED';
  message: string;
  details: OrderProblemDetail[];
}

/**
 * The deadlines create accepts at `nowMs`: best mode needs the quote window plus the processing buffer
 * before the deadline; manual mode needs a deadline in the future. Both bounds are inclusive.
 */
export function deadlineBounds(nowMs: number, fillMode: FillMode, limits: Pick<RfqLimits, 'quoteWindowMs' | 'maxDeadlineMs'>) {
  return {
    earliestMs: fillMode === 'best' ? nowMs + limits.quoteWindowMs + PROCESSING_BUFFER_MS : nowMs + 1,
    latestMs: nowMs + limits.maxDeadlineMs,
  };
}

/** Every INVALID_ORDER problem at once (details per field); else ORDER_EXPIRED; else null. */
export function checkOrder(order: RfqOrderJson, fillMode: FillMode, limits: RfqLimits, nowMs: number): OrderProblem | null {
  const details: OrderProblemDetail[] = [];
  const add = (path: string, message: string) => details.push({ in: 'body', path: `/order${path}`, message });

  if (order.legs.length > limits.maxLegs) add('/legs', `must have at most ${limits.maxLegs} legs`);
  const seen = new Map<number, number>();
  order.legs.forEach((leg, i) => {
    const first = seen.get(leg.market_id);
    if (first === undefined) seen.set(leg.market_id, i);
    else add(`/legs/${i}/market_id`, `repeats market ${leg.market_id} of leg ${first}: a market may appear once per order`);
  });

  const stake = BigInt(order.stake_micros);
  if (stake < limits.minStakeMicros) add('/stake_micros', `must be at least ${limits.minStakeMicros}`);
  if (stake > limits.maxStakeMicros) add('/stake_micros', `must be at most ${limits.maxStakeMicros}`);
  const minPayout = payoutFor(stake, order.min_odds_bps);
  if (minPayout > limits.maxPayoutMicros) {
    add('/min_odds_bps', `stake_micros x min_odds_bps pays ${minPayout} micros, above the maximum payout of ${limits.maxPayoutMicros}`);
  }

  const { earliestMs, latestMs } = deadlineBounds(nowMs, fillMode, limits);
  if (order.deadline_ms > latestMs) add('/deadline_ms', `must be at most ${limits.maxDeadlineMs} ms ahead (<= ${latestMs})`);
  if (details.length)
    return {
      code: 'INVALID_ORDER',
      message: `the order is not acceptable: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
      details,
    };

  if (order.deadline_ms < earliestMs) {
    const why =
      fillMode === 'best'
        ? `must leave the ${limits.quoteWindowMs} ms quote window and ${PROCESSING_BUFFER_MS} ms of processing (>= ${earliestMs})`
        : `has passed (must be > ${nowMs})`;
    return {
      code: 'ORDER_EXPIRED',
      message: `deadline_ms ${why}; sign a new order with a later deadline`,
      details: [{ in: 'body', path: '/order/deadline_ms', message: why }],
    };
  }
  return null;
}

/** checkOrder, thrown as the one error body (422). */
export function assertOrderAcceptable(order: RfqOrderJson, fillMode: FillMode, limits: RfqLimits, nowMs: number): void {
  const p = checkOrder(order, fillMode, limits, nowMs);
  if (p) throw new Unprocessable(p.code, p.message, p.details);
}
