// RFQ window status and resolution (spec/openapi.yaml getMarket; docs/trading.md, "Resolution and settlement"): a window is OPEN until its
// betting close, then CLOSED until a resolution row exists, then RESOLVED (YES/NO) or VOIDED. The
// resolution is immutable: the first writer (the feed job or the operator) wins. Up (YES) wins only if
// close > open. Prices are read outside any transaction; settling the positions is settleWindow's job.
import type { Em } from '../../db/orm.js';
import { int8ToBigint, int8ToNumber, int8ToNumberOrNull } from '../../db/int8.js';
import { positionsRepository } from '../../db/repositories/positions.repository.js';
import { db } from '../../db/schema.js';
import { Conflict, NotFound } from '../errors.js';
import { windowOutcome, type PriceFeed } from '../prices/feed.js';
import { bettingClosesAt } from './windows.js';

export type WindowStatus = 'OPEN' | 'CLOSED' | 'RESOLVED' | 'VOIDED';
export type WindowResolutionOutcome = 'YES' | 'NO' | 'VOID';

export interface WindowState {
  marketId: number;
  asset: string;
  durationSecs: number;
  startAtMs: number;
  bettingClosesAtMs: number;
  endAtMs: number;
  status: WindowStatus;
  /** YES / NO once resolved; null while open, closed or voided. */
  outcome: 'YES' | 'NO' | null;
  openPriceMicros: bigint | null;
  closePriceMicros: bigint | null;
  priceSource: string | null;
  resolvedBy: 'feed' | 'operator' | null;
  resolvedAtMs: number | null;
}

const notFound = (marketId: number) =>
  new NotFound('MARKET_NOT_FOUND', `no RFQ market window ${marketId}; take market_id from GET /v1/markets/current or /v1/markets/lookup`);

export async function getWindowState(em: Em, marketId: number, bufferMs: number, nowMs = Date.now()): Promise<WindowState> {
  if (!Number.isSafeInteger(marketId) || marketId < 1) throw notFound(marketId);
  const r = await positionsRepository(db(em)).window(marketId);
  if (!r) throw notFound(marketId);
  const startAtMs = int8ToNumber(r.start_at_ms);
  const bettingClosesAtMs = bettingClosesAt(startAtMs, r.duration_secs, bufferMs);
  const status: WindowStatus = r.outcome ? (r.outcome === 'VOID' ? 'VOIDED' : 'RESOLVED') : nowMs < bettingClosesAtMs ? 'OPEN' : 'CLOSED';
  return {
    marketId,
    asset: r.asset,
    durationSecs: r.duration_secs,
    startAtMs,
    bettingClosesAtMs,
    endAtMs: startAtMs + r.duration_secs * 1000,
    status,
    outcome: r.outcome === 'YES' || r.outcome === 'NO' ? r.outcome : null,
    openPriceMicros: r.open_price_micros === null ? null : int8ToBigint(r.open_price_micros),
    closePriceMicros: r.close_price_micros === null ? null : int8ToBigint(r.close_price_micros),
    priceSource: r.source,
    resolvedBy: r.resolved_by,
    resolvedAtMs: int8ToNumberOrNull(r.resolved_at_ms),
  };
}

export type FeedResolution =
  | { kind: 'resolved'; outcome: WindowResolutionOutcome; recorded: boolean }
  | { kind: 'not_ended' }
  | { kind: 'waiting_for_price' }
  | { kind: 'missing' };

/**
 * Resolves an ended window from the feed: open = price at start, close = price at end. No price yet:
 * `waiting_for_price` (the job retries) until end + maxWaitMs, then VOID. An existing resolution wins.
 */
export async function resolveWindowFromFeed(
  em: Em,
  feed: PriceFeed,
  marketId: number,
  opts: { nowMs: number; maxWaitMs: number },
): Promise<FeedResolution> {
  const repo = positionsRepository(db(em));
  const w = await repo.window(marketId);
  if (!w) return { kind: 'missing' };
  if (w.outcome) return { kind: 'resolved', outcome: w.outcome, recorded: false };
  const start = int8ToNumber(w.start_at_ms);
  const end = start + w.duration_secs * 1000;
  if (opts.nowMs < end) return { kind: 'not_ended' };
  const [open, close] = await Promise.all([feed.priceAt(w.asset, start), feed.priceAt(w.asset, end)]);
  let outcome: WindowResolutionOutcome;
  if (open && close) outcome = windowOutcome(open.priceMicros, close.priceMicros);
  else if (opts.nowMs >= end + opts.maxWaitMs) outcome = 'VOID';
  else return { kind: 'waiting_for_price' };
  const recorded = await repo.insertResolution({
    marketId,
    outcome,
    openPrice: outcome === 'VOID' ? null : open!.priceMicros,
    closePrice: outcome === 'VOID' ? null : close!.priceMicros,
    source: feed.source,
    resolvedBy: 'feed',
    resolvedAtMs: opts.nowMs,
  });
  if (recorded) return { kind: 'resolved', outcome, recorded };
  const first = (await repo.window(marketId))!; // another resolver won the race: its outcome stands
  return { kind: 'resolved', outcome: first.outcome!, recorded: false };
}

/** The operator's override: 409 BETTING_OPEN before the betting close, 409 MARKET_ALREADY_RESOLVED after a resolution. */
export async function resolveWindowByOperator(
  em: Em,
  marketId: number,
  outcome: WindowResolutionOutcome,
  bufferMs: number,
  nowMs = Date.now(),
): Promise<WindowState> {
  const state = await getWindowState(em, marketId, bufferMs, nowMs);
  if (state.status === 'OPEN') {
    throw new Conflict('BETTING_OPEN', `betting on market ${marketId} is open until ${state.bettingClosesAtMs}; resolve it after that`, {
      betting_closes_at_ms: state.bettingClosesAtMs,
    });
  }
  const already = () =>
    new Conflict(
      'MARKET_ALREADY_RESOLVED',
      `market ${marketId} is already ${state.status === 'VOIDED' ? 'voided' : `resolved ${state.outcome}`}; a resolution is final`,
    );
  if (state.status !== 'CLOSED') throw already();
  const recorded = await positionsRepository(db(em)).insertResolution({
    marketId,
    outcome,
    openPrice: null,
    closePrice: null,
    source: 'operator',
    resolvedBy: 'operator',
    resolvedAtMs: nowMs,
  });
  if (!recorded) throw already();
  return getWindowState(em, marketId, bufferMs, nowMs);
}

/** Windows ended at least `delayMs` ago that still have pending legs (the relay enqueues each). */
export function windowsAwaitingResolution(em: Em, nowMs: number, delayMs: number, limit = 500): Promise<number[]> {
  return positionsRepository(db(em)).windowsToResolve(nowMs - delayMs, limit);
}
