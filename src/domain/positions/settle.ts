// Settling positions when a window resolves (docs/trading.md, "Settling the positions"): in batches of at most `batchSize`
// positions, each batch one database transaction: lock the positions with a pending leg on the window,
// apply the outcome to those legs, evaluate each open position (a parlay is lost at its first lost leg,
// won when every leg has won, voided when none lost and one was voided), post ONE ledger transaction for
// the whole batch, record PnL, move the trading counters. Re-running changes nothing: only pending legs
// and open positions are touched, under the row locks.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { post } from '../ledger/ledger.js';
import type { ResolutionOutcome } from '../../db/vocabulary.js';
import type { RfqEvent } from '../rfq/events.js';
import { positionsToSettle, settlementPlan } from './settlement-plan.js';
import { repos } from '../../db/repos.js';

export { makerPnl, takerPnl } from './settlement-plan.js';

export const SETTLE_BATCH = 1000;

export interface SettleResult {
  /** Positions that reached won/lost/voided. */
  settled: number;
  /** Positions whose leg on this window got its outcome (settled or still open). */
  touched: number;
  /** position_settled frames for the makers, to publish after commit. */
  events: RfqEvent[];
}

/**
 * One batch in its own transaction; null when no position has a pending leg on the window. Read (lock the
 * batch, apply the outcome to its legs, read its positions and the fills of those that settle), decide
 * (settlementPlan), write (one ledger posting, the positions, the makers' PnL, the counters).
 */
async function settleBatch(
  em: Em,
  marketId: number,
  outcome: ResolutionOutcome,
  nowMs: number,
  batchSize: number,
): Promise<SettleResult | null> {
  return em.transactional(async (tx) => {
    const repo = repos(tx).positions;
    const ids = await repo.lockBatch(marketId, batchSize);
    if (!ids.length) return null;
    await repo.applyOutcome(marketId, outcome, ids);
    const settling = positionsToSettle(await repo.positionsWithLegs(ids));
    if (!settling.length) return { settled: 0, touched: ids.length, events: [] };
    const plan = settlementPlan(settling, await repo.fillsOf(settling.map((p) => p.id)), nowMs);

    const settleTxId = randomUUID();
    if (plan.entries.length)
      await post(tx, { id: settleTxId, kind: 'position_settle', reference: `window:${marketId}`, entries: plan.entries });
    await repo.settlePositions(plan.positions, nowMs, settleTxId);
    await repo.setMakerPnl(plan.makerPnls);
    await repo.bumpSettledStats(plan.counters);
    return { settled: plan.positions.length, touched: ids.length, events: plan.events };
  });
}

/** Settles every position with a pending leg on the resolved window; `onBatch` gets each committed batch. */
export async function settleWindow(
  em: Em,
  marketId: number,
  outcome: ResolutionOutcome,
  nowMs: number,
  opts: { batchSize?: number; onBatch?: (r: SettleResult) => Promise<void> | void } = {},
): Promise<{ settled: number; touched: number; batches: number }> {
  const total = { settled: 0, touched: 0, batches: 0 };
  for (;;) {
    const r = await settleBatch(em.fork(), marketId, outcome, nowMs, opts.batchSize ?? SETTLE_BATCH);
    if (!r) return total;
    total.settled += r.settled;
    total.touched += r.touched;
    total.batches += 1;
    await opts.onBatch?.(r);
  }
}
