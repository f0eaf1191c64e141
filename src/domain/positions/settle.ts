// Settling positions when a window resolves (docs/trading.md, "Settling the positions"): in batches of at most `batchSize`
// positions, each batch one database transaction: lock the positions with a pending leg on the window,
// apply the outcome to those legs, evaluate each open position (a parlay is lost at its first lost leg,
// won when every leg has won, voided when none lost and one was voided), post ONE ledger transaction for
// the whole batch, record PnL, move the trading counters. Re-running changes nothing: only pending legs
// and open positions are touched, under the row locks.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { int8ToBigint } from '../../db/int8.js';
import { positionsRepository, type StatsSettleDelta } from '../../db/repositories/positions.repository.js';
import { db } from '../../db/schema.js';
import { post, type UserAccountKind } from '../ledger/ledger.js';
import type { ResolutionOutcome } from '../../db/vocabulary.js';
import type { RfqEvent } from '../rfq/events.js';
import { positionStatus, type LegOutcome, type PositionStatus } from './outcome.js';

export const SETTLE_BATCH = 1000;

export interface SettleResult {
  /** Positions that reached won/lost/voided. */
  settled: number;
  /** Positions whose leg on this window got its outcome (settled or still open). */
  touched: number;
  /** position_settled frames for the makers, to publish after commit. */
  events: RfqEvent[];
}

interface Fill {
  id: string;
  positionId: string;
  maker: string;
  makerUserId: string;
  stake: bigint;
  payout: bigint;
  liability: bigint;
}

/** Taker PnL: won payout - stake, lost -stake, voided 0. */
export function takerPnl(status: Exclude<PositionStatus, 'open'>, stake: bigint, payout: bigint): bigint {
  return status === 'won' ? payout - stake : status === 'lost' ? -stake : 0n;
}

/** A maker's PnL on its fill: the taker won -> -liability; lost -> +its filled stake; voided 0. */
export function makerPnl(status: Exclude<PositionStatus, 'open'>, fillStake: bigint, liability: bigint): bigint {
  return status === 'won' ? -liability : status === 'lost' ? fillStake : 0n;
}

/** One batch in its own transaction; null when no position has a pending leg on the window. */
async function settleBatch(em: Em, marketId: number, outcome: ResolutionOutcome, nowMs: number, batchSize: number): Promise<SettleResult | null> {
  return em.transactional(async (tx) => {
    const repo = positionsRepository(db(tx));
    const ids = await repo.lockBatch(marketId, batchSize);
    if (!ids.length) return null;
    await repo.applyOutcome(marketId, outcome, ids);

    const positions = new Map<string, { rfqId: string; taker: string; stake: bigint; payout: bigint; status: string; legs: LegOutcome[] }>();
    for (const r of await repo.positionsWithLegs(ids)) {
      const p = positions.get(r.id) ?? {
        rfqId: r.rfq_id,
        taker: r.taker_user_id,
        stake: int8ToBigint(r.stake),
        payout: int8ToBigint(r.payout),
        status: r.status,
        legs: [],
      };
      p.legs.push(r.outcome);
      positions.set(r.id, p);
    }
    const settling = [...positions.entries()]
      .filter(([, p]) => p.status === 'open')
      .map(([id, p]) => ({ id, ...p, final: positionStatus(p.legs) }))
      .filter((p): p is typeof p & { final: Exclude<PositionStatus, 'open'> } => p.final !== 'open');
    if (!settling.length) return { settled: 0, touched: ids.length, events: [] };

    const fills: Fill[] = (await repo.fillsOf(settling.map((p) => p.id))).map((f) => ({
      id: f.id,
      positionId: f.position_id,
      maker: f.maker_address,
      makerUserId: f.maker_user_id,
      stake: int8ToBigint(f.stake),
      payout: int8ToBigint(f.payout),
      liability: int8ToBigint(f.liability),
    }));
    const fillsOf = new Map<string, Fill[]>();
    for (const f of fills) fillsOf.set(f.positionId, [...(fillsOf.get(f.positionId) ?? []), f]);

    // Net movement per (user, account kind) over the whole batch: one posting.
    const net = new Map<string, bigint>();
    const move = (userId: string, kind: UserAccountKind, amount: bigint) =>
      net.set(`${userId}|${kind}`, (net.get(`${userId}|${kind}`) ?? 0n) + amount);
    const stats = new Map<string, StatsSettleDelta>();
    const stat = (owner: string) => {
      let s = stats.get(owner);
      if (!s) stats.set(owner, (s = { owner, openCount: 0, openStake: 0n, potentialPayout: 0n, settled: 0, wins: 0, losses: 0, voided: 0, pnl: 0n }));
      return s;
    };
    const makerPnls: Array<{ id: string; pnl: bigint }> = [];
    const events: RfqEvent[] = [];
    for (const p of settling) {
      const pfills = fillsOf.get(p.id) ?? [];
      move(p.taker, 'user_reserved', -p.stake);
      if (p.final === 'won') move(p.taker, 'user_available', p.payout);
      if (p.final === 'voided') move(p.taker, 'user_available', p.stake);
      const t = stat(`user:${p.taker}`);
      t.openCount -= 1;
      t.openStake -= p.stake;
      t.potentialPayout -= p.payout;
      t.settled += 1;
      if (p.final === 'won') t.wins += 1;
      else if (p.final === 'lost') t.losses += 1;
      else t.voided += 1;
      t.pnl += takerPnl(p.final, p.stake, p.payout);
      for (const f of pfills) {
        move(f.makerUserId, 'user_reserved', -f.liability);
        if (p.final === 'lost') move(f.makerUserId, 'user_available', f.stake + f.liability);
        if (p.final === 'voided') move(f.makerUserId, 'user_available', f.liability);
        const pnl = makerPnl(p.final, f.stake, f.liability);
        makerPnls.push({ id: f.id, pnl });
        const m = stat(`mm:${f.maker}`);
        m.openCount -= 1;
        m.openStake -= f.liability;
        m.potentialPayout -= f.payout;
        m.settled += 1;
        if (p.final === 'lost') m.wins += 1;
        else if (p.final === 'won') m.losses += 1;
        else m.voided += 1;
        m.pnl += pnl;
        events.push({
          topic: 'mm.event',
          wallet: f.maker,
          frame: {
            type: 'position_settled',
            position_id: p.id,
            rfq_id: p.rfqId,
            outcome: p.final,
            maker_pnl_micros: pnl.toString(),
            settled_at_ms: nowMs,
          },
        });
      }
    }
    const settleTxId = randomUUID();
    const entries = [...net.entries()]
      .filter(([, amount]) => amount !== 0n)
      .map(([k, amount]) => {
        const [userId, kind] = k.split('|') as [string, UserAccountKind];
        return { account: { userId, kind }, amount };
      });
    if (entries.length) await post(tx, { id: settleTxId, kind: 'position_settle', reference: `window:${marketId}`, entries });
    await repo.settlePositions(
      settling.map((p) => ({ id: p.id, status: p.final, pnl: takerPnl(p.final, p.stake, p.payout) })),
      nowMs,
      settleTxId,
    );
    await repo.setMakerPnl(makerPnls);
    await repo.bumpSettledStats([...stats.values()]);
    return { settled: settling.length, touched: ids.length, events };
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
