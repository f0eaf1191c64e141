// What settling a batch of positions writes, decided without the database (docs/trading.md, "Settling the
// positions"): settle.ts reads the batch, asks settlementPlan() and writes the plan in the batch's
// transaction. Pure, so its sums are checked by property tests (settlement-plan.property.test.ts): what
// takers and makers receive equals what was reserved for the settled positions, the PnLs sum to zero, and
// the counters move by exactly the positions' sums.
import type { StatsSettleDelta } from '../../db/repositories/positions.rows.js';
import type { UserAccountKind } from '../ledger/ledger.js';
import type { SettlingFill, SettlingPosition } from '../../db/repositories/positions.rows.js';
import type { RfqEvent } from '../rfq/events.js';
import { positionSettledFrame } from '../rfq/records.js';
import { positionStatus, type PositionStatus } from './outcome.js';
import { makerOwner, SettledCounters, takerOwner } from '../trading-counters.js';

export type SettledStatus = Exclude<PositionStatus, 'open'>;

/**
 * A position of the batch (the repository's row: src/db/repositories/positions.rows.ts), its legs' outcomes read
 * after the window's outcome was applied to them; `stake` is the taker's filled stake, reserved at the fill.
 */
export type PlanPosition = SettlingPosition;
/** A maker's share of a position (its liability reserved in the maker's user_reserved at the fill). */
export type PlanFill = SettlingFill;

export interface LedgerMove {
  account: { userId: string; kind: UserAccountKind };
  amount: bigint;
}

export interface SettlementPlan {
  /** The positions that reach won/lost/voided now, with the taker's PnL. */
  positions: Array<{ id: string; status: SettledStatus; pnl: bigint }>;
  /** The net movement per (user, account) over the batch: one ledger posting (zero movements left out). */
  entries: LedgerMove[];
  /** Each settled fill's maker PnL. */
  makerPnls: Array<{ id: string; pnl: bigint }>;
  /** The trading counters' deltas, per owner. */
  counters: StatsSettleDelta[];
  /** position_settled for each maker fill, to publish after commit. */
  events: RfqEvent[];
}

/** Taker PnL: won payout - stake, lost -stake, voided 0. */
export function takerPnl(status: SettledStatus, stake: bigint, payout: bigint): bigint {
  return status === 'won' ? payout - stake : status === 'lost' ? -stake : 0n;
}

/** A maker's PnL on its fill: the taker won -> -liability; lost -> +its filled stake; voided 0. */
export function makerPnl(status: SettledStatus, fillStake: bigint, liability: bigint): bigint {
  return status === 'won' ? -liability : status === 'lost' ? fillStake : 0n;
}

/** The maker's side of a taker's result. */
const makerResult = (status: SettledStatus) => (status === 'won' ? 'lost' : status === 'lost' ? 'won' : 'voided');

/** The status a position reaches now: its own when it is no longer open, else its legs' verdict. */
const finalStatus = (p: PlanPosition): PositionStatus => (p.status === 'open' ? positionStatus(p.legs) : 'open');

/** The positions of a batch that settle now (open, every leg decided or one lost): whose fills the plan needs. */
export const positionsToSettle = (positions: readonly PlanPosition[]): PlanPosition[] => positions.filter((p) => finalStatus(p) !== 'open');

/**
 * Settles the open positions whose legs are all decided (a parlay is lost at its first lost leg, won when
 * every leg has won, voided when none lost and one was voided); the others stay as they are.
 *
 * Money: the taker's stake and each maker's liability leave user_reserved; the winner side gets the pot
 * (stake + liabilities) in user_available, a void gives each side back what it had reserved.
 */
export function settlementPlan(positions: readonly PlanPosition[], fills: readonly PlanFill[], settledAtMs: number): SettlementPlan {
  const fillsOf = new Map<string, PlanFill[]>();
  for (const f of fills) fillsOf.set(f.positionId, [...(fillsOf.get(f.positionId) ?? []), f]);
  const net = new Map<string, LedgerMove>();
  const move = (userId: string, kind: UserAccountKind, amount: bigint) => {
    const k = `${userId}|${kind}`;
    const m = net.get(k) ?? { account: { userId, kind }, amount: 0n };
    m.amount += amount;
    net.set(k, m);
  };
  const counters = new SettledCounters();
  const plan: SettlementPlan = { positions: [], entries: [], makerPnls: [], counters: [], events: [] };
  for (const p of positions) {
    const final = finalStatus(p);
    if (final === 'open') continue;
    const pnl = takerPnl(final, p.stake, p.payout);
    plan.positions.push({ id: p.id, status: final, pnl });
    move(p.takerUserId, 'user_reserved', -p.stake);
    if (final === 'won') move(p.takerUserId, 'user_available', p.payout);
    if (final === 'voided') move(p.takerUserId, 'user_available', p.stake);
    counters.settle(takerOwner(p.takerUserId), final, p.stake, p.payout, pnl);
    for (const f of fillsOf.get(p.id) ?? []) {
      const fillPnl = makerPnl(final, f.stake, f.liability);
      plan.makerPnls.push({ id: f.id, pnl: fillPnl });
      move(f.makerUserId, 'user_reserved', -f.liability);
      if (final === 'lost') move(f.makerUserId, 'user_available', f.stake + f.liability);
      if (final === 'voided') move(f.makerUserId, 'user_available', f.liability);
      counters.settle(makerOwner(f.makerAddress), makerResult(final), f.liability, f.payout, fillPnl);
      plan.events.push({
        topic: 'mm.event',
        wallet: f.makerAddress,
        frame: positionSettledFrame({ positionId: p.id, rfqId: p.rfqId, outcome: final, makerPnl: fillPnl, settledAtMs }),
      });
    }
  }
  plan.entries = [...net.values()].filter((m) => m.amount !== 0n);
  plan.counters = counters.deltas();
  return plan;
}
