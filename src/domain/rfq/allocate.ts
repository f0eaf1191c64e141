// The fill allocation (docs/trading.md, "Fill and rounding rules"), pure: which live quotes fill how much of an RFQ's stake.
// The caller (closeRfq / acceptQuote) reads the quotes and the RFQ under lock, passes the maker collateral
// check as a hook called only for a quote about to be filled, and writes the result in one transaction.
// Quote signatures were checked when each quote arrived (src/domain/rfq/quotes.ts), not here.
// Rounding (docs/fill-path.md): each maker's payout rounds UP to the micro, in the taker's favour.
import type { OrderType } from './typed-data.js';

export const ODDS_ONE_BPS = 10_000n;

export interface QuoteCandidate {
  quoteId: string;
  makerAddress: string;
  oddsBps: number;
  maxFillMicros: bigint;
  validUntilMs: number;
  receivedAtMs: number;
}

export interface AllocationInput {
  stakeMicros: bigint;
  minOddsBps: number;
  orderType: OrderType;
  nowMs: number;
  /** RFQ_MAX_PAYOUT_MICROS: no position may pay more than this. */
  maxPayoutMicros: bigint;
  /** RFQ_MIN_FILL_MICROS: no maker fills less of the stake than this (no dust fills). */
  minFillMicros: bigint;
  /** The RFQ's live quotes (manual accept: the accepted one only). */
  quotes: readonly QuoteCandidate[];
}

export interface AllocationHooks {
  /** Whether the maker's available balance covers `liabilityMicros`; called only for a quote that would fill. */
  hasCollateral?: (q: QuoteCandidate, liabilityMicros: bigint) => boolean;
}

export interface Fill {
  quote: QuoteCandidate;
  fillMicros: bigint;
  payoutMicros: bigint;
  /** payout - fill: what the maker reserves and loses if the taker wins. Always >= 1 micro. */
  liabilityMicros: bigint;
}

export type NotFilledReason = 'outbid' | 'below_min_odds' | 'quote_expired' | 'rfq_expired';
export type RejectedReason = 'invalid_signature' | 'insufficient_collateral' | 'payout_exceeds_maximum';
export type QuoteOutcome =
  | { quoteId: string; status: 'filled'; fill: Fill }
  | { quoteId: string; status: 'not_filled'; reason: NotFilledReason }
  | { quoteId: string; status: 'rejected'; reason: RejectedReason };

export type ExpiredReason = 'no_quotes' | 'below_min_odds' | 'insufficient_liquidity';
export type Allocation =
  | {
      status: 'filled';
      fills: Fill[];
      filledStakeMicros: bigint;
      payoutMicros: bigint;
      /** Effective odds: floor(payout * 10000 / filled). */
      oddsBps: number;
      /** Stake returned to available (IOC remainder; 0 for FOK). */
      releasedMicros: bigint;
      quotes: QuoteOutcome[];
    }
  | { status: 'expired'; reason: ExpiredReason; releasedMicros: bigint; quotes: QuoteOutcome[] };

/**
 * payout = ceil(fill * odds / 10000): stake included, rounded in the taker's favour (the maker pays less than
 * 1 micro above its quoted odds). So the payout of a fill is never below filled x min_odds / 10000, and the
 * reported odds (effectiveOddsBps, rounded down) never below the signed min_odds_bps.
 */
export function payoutFor(fillMicros: bigint, oddsBps: number): bigint {
  return (fillMicros * BigInt(oddsBps) + ODDS_ONE_BPS - 1n) / ODDS_ONE_BPS;
}

export function effectiveOddsBps(payoutMicros: bigint, filledMicros: bigint): number {
  if (filledMicros <= 0n) throw new RangeError('effective odds need a positive filled stake');
  return Number((payoutMicros * ODDS_ONE_BPS) / filledMicros);
}

/**
 * The one best-first order of quotes: odds desc, then earliest received, then id (a total order, so ties are
 * deterministic). rfq_lock_for_close (RfqRepository.lockForClose) reads (and locks) quotes in the same order.
 */
export const bestFirst =
  <Q extends { oddsBps: number; receivedAtMs: number }>(idOf: (q: Q) => string) =>
  (a: Q, b: Q): number =>
    b.oddsBps - a.oddsBps || a.receivedAtMs - b.receivedAtMs || (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0);

export const compareQuotes = bestFirst<QuoteCandidate>((q) => q.quoteId);

/** allocateNow, for callers that await it. */
export async function allocate(input: AllocationInput, hooks: AllocationHooks = {}): Promise<Allocation> {
  return Promise.resolve(allocateNow(input, hooks));
}

/** The allocation, synchronously (pure: planClose in close-plan.ts runs it). */
export function allocateNow(input: AllocationInput, hooks: AllocationHooks = {}): Allocation {
  const { stakeMicros, minOddsBps, orderType, nowMs, maxPayoutMicros, minFillMicros } = input;
  if (stakeMicros <= 0n) throw new RangeError('stake must be positive');
  const outcomes = new Map<string, QuoteOutcome>();
  const valid = input.quotes.filter((q) => {
    if (q.validUntilMs > nowMs) return true;
    outcomes.set(q.quoteId, { quoteId: q.quoteId, status: 'not_filled', reason: 'quote_expired' });
    return false;
  });
  const candidates = valid.filter((q) => {
    if (q.oddsBps >= minOddsBps && q.oddsBps > Number(ODDS_ONE_BPS)) return true;
    outcomes.set(q.quoteId, { quoteId: q.quoteId, status: 'not_filled', reason: 'below_min_odds' });
    return false;
  });
  candidates.sort(compareQuotes);
  const ordered = () => input.quotes.map((q) => outcomes.get(q.quoteId)!);
  const expire = (reason: ExpiredReason): Allocation => {
    for (const q of candidates) {
      const o = outcomes.get(q.quoteId);
      if (!o || o.status === 'filled') outcomes.set(q.quoteId, { quoteId: q.quoteId, status: 'not_filled', reason: 'rfq_expired' });
    }
    return { status: 'expired', reason, releasedMicros: stakeMicros, quotes: ordered() };
  };

  if (!valid.length) return expire('no_quotes');
  if (!candidates.length) return expire('below_min_odds');
  // FOK that cannot be met even if every candidate fills: no collateral is worth checking.
  if (orderType === 'FOK' && candidates.reduce((s, q) => s + q.maxFillMicros, 0n) < stakeMicros) return expire('insufficient_liquidity');

  const fills: Fill[] = [];
  let remaining = stakeMicros;
  let payout = 0n;
  for (const q of candidates) {
    const fillMicros = remaining < q.maxFillMicros ? remaining : q.maxFillMicros;
    // Nothing left, or a dust remainder (below RFQ_MIN_FILL_MICROS): the better quotes took the stake.
    if (fillMicros <= 0n || fillMicros < minFillMicros) {
      outcomes.set(q.quoteId, { quoteId: q.quoteId, status: 'not_filled', reason: 'outbid' });
      continue;
    }
    const payoutMicros = payoutFor(fillMicros, q.oddsBps);
    const liabilityMicros = payoutMicros - fillMicros;
    const reject = (reason: RejectedReason) => outcomes.set(q.quoteId, { quoteId: q.quoteId, status: 'rejected', reason });
    if (payout + payoutMicros > maxPayoutMicros) {
      reject('payout_exceeds_maximum');
      continue;
    }
    if (hooks.hasCollateral && !hooks.hasCollateral(q, liabilityMicros)) {
      reject('insufficient_collateral');
      continue;
    }
    const fill = { quote: q, fillMicros, payoutMicros, liabilityMicros };
    fills.push(fill);
    outcomes.set(q.quoteId, { quoteId: q.quoteId, status: 'filled', fill });
    remaining -= fillMicros;
    payout += payoutMicros;
  }

  if (!fills.length || (orderType === 'FOK' && remaining > 0n)) return expire('insufficient_liquidity');
  const filled = stakeMicros - remaining;
  return {
    status: 'filled',
    fills,
    filledStakeMicros: filled,
    payoutMicros: payout,
    oddsBps: effectiveOddsBps(payout, filled),
    releasedMicros: remaining,
    quotes: ordered(),
  };
}
