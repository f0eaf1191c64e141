// The trading counters (table trading_stats; docs/trading.md, "PnL"): one row per owner, kept in the fill
// and settlement transactions, so the portfolio, a maker's PnL and the taker PnL a maker looks up are one
// row read. This module is the one place that builds and parses an owner key and that counts what a
// settlement moves; the close plan (src/domain/rfq/close-plan.ts), the settlement plan
// (src/domain/positions/settlement-plan.ts), the reads (src/domain/positions/portfolio.ts) and the ledger check
// (src/domain/ledger/ledger.ts) call it, so it stands below all of them (docs/architecture.md, "Floors").
//
// Owner keys: `user:<user uuid>` for a taker, `mm:<lowercase wallet>` for a maker (one user may be both).
import type { StatsSettleDelta } from '../db/repositories/positions.rows.js';

/** The key prefixes, also for SQL that derives keys from the positions (the ledger check). */
export const OWNER_PREFIX = { taker: 'user:', maker: 'mm:' } as const;

export type CounterOwner = { side: 'taker'; userId: string } | { side: 'maker'; wallet: string };

/** The counters' key of a taker (a user id). */
export const takerOwner = (userId: string): string => `${OWNER_PREFIX.taker}${userId}`;

/** The counters' key of a maker: its wallet, lowercase (as rfq_quotes and position_fills store it). */
export const makerOwner = (wallet: string): string => `${OWNER_PREFIX.maker}${wallet.toLowerCase()}`;

/** Who an owner key names; throws on a key this module did not build. */
export function parseOwner(owner: string): CounterOwner {
  if (owner.startsWith(OWNER_PREFIX.taker) && owner.length > OWNER_PREFIX.taker.length) {
    return { side: 'taker', userId: owner.slice(OWNER_PREFIX.taker.length) };
  }
  if (owner.startsWith(OWNER_PREFIX.maker) && owner.length > OWNER_PREFIX.maker.length) {
    return { side: 'maker', wallet: owner.slice(OWNER_PREFIX.maker.length) };
  }
  throw new RangeError(`not a trading counters owner key: ${owner}`);
}

/** How a settled position ended for one owner: a taker's win is its makers' loss. */
export type OwnerResult = 'won' | 'lost' | 'voided';

/**
 * The settled counters of a batch, per owner: each settled position (or maker fill) leaves the open
 * counters (-1, -its open stake, -its potential payout) and is counted as a win, a loss or a void with its PnL.
 */
export class SettledCounters {
  private readonly byOwner = new Map<string, StatsSettleDelta>();

  /** `openStake`: what the owner had at risk (a taker's stake, a maker's liability); `payout`: its potential payout. */
  settle(owner: string, result: OwnerResult, openStake: bigint, payout: bigint, pnl: bigint): void {
    let s = this.byOwner.get(owner);
    if (!s)
      this.byOwner.set(
        owner,
        (s = { owner, openCount: 0, openStake: 0n, potentialPayout: 0n, settled: 0, wins: 0, losses: 0, voided: 0, pnl: 0n }),
      );
    s.openCount -= 1;
    s.openStake -= openStake;
    s.potentialPayout -= payout;
    s.settled += 1;
    if (result === 'won') s.wins += 1;
    else if (result === 'lost') s.losses += 1;
    else s.voided += 1;
    s.pnl += pnl;
  }

  deltas(): StatsSettleDelta[] {
    return [...this.byOwner.values()];
  }
}
