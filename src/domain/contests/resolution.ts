// Market resolution, contest resolution and payouts, voiding (docs/getting-started.md, Contests).
//   resolveMarket(): the operator sets a market's outcome; every entry picking it gets its leg counted in the
//     same transaction (won legs, and the score: lineups every win, outcast only wins on the minority side).
//   resolveContest(): run by the `contests` worker once no market is OPEN. Locks the contest and does nothing
//     unless it is still open, so a second run (retry, duplicate job, relay) pays nothing twice. Ranks every
//     entry, splits the pot, and posts one ledger transaction: reserved bets and the protocol prize pool into
//     the contest's pot, payouts out to winners' available balances, the remainder to the treasury.
//   voidContest(): refunds every entry's bet from reserved to available and marks the contest voided; a
//     contest whose every market was voided is voided the same way by resolveContest().
// Both read under the contest's lock, decide in src/domain/contests/resolution-plan.ts (pure), then write; the
// contest lifecycle (src/trading/contest-lifecycle.ts) publishes `contests.changed` after the commit.
import type { Em } from '../../db/orm.js';
import { Conflict, NotFound } from '../errors.js';
import { post, type Posting } from '../ledger/ledger.js';
import type { ResolutionOutcome } from '../../db/vocabulary.js';
import { loadContest, marketFromRow, rebuildScoreCounts, type ContestMarketRecord, type ContestRecord } from './records.js';
import { alreadySettled, planResolution, planVoid, type SettlingEntry } from './resolution-plan.js';
import { winScores, winningDirection } from './scoring.js';
import { repos } from '../../db/repos.js';

export interface ResolvedMarket {
  market: ContestMarketRecord;
  /** True when this was the contest's last OPEN market: the contest is ready to be resolved. */
  contestReady: boolean;
}

export async function resolveMarket(em: Em, marketId: number, resolution: ResolutionOutcome, nowMs = Date.now()): Promise<ResolvedMarket> {
  return em.transactional(async (tx) => {
    const repo = repos(tx).contests;
    const owner = await repo.marketOwner(marketId);
    if (!owner) throw new NotFound('MARKET_NOT_FOUND', `No contest market has the id ${marketId}.`);
    // Contest first, then market: the same lock order as entries, resolution and voiding.
    const contest = await loadContest(tx, owner.contest_id, { forUpdate: true });
    const market = marketFromRow((await repo.marketForUpdate(marketId))!);
    if (market.status !== 'OPEN') {
      throw new Conflict(
        'MARKET_ALREADY_RESOLVED',
        `This market is already ${market.status}${market.outcome ? ` (${market.outcome})` : ''}.`,
        {
          market_id: marketId,
          status: market.status,
          outcome: market.outcome,
        },
      );
    }
    if (contest.status !== 'open') throw alreadySettled(contest);
    // An outcome while entries can still be made would let late entrants pick the known result (and, with
    // hidden picks, show on the leaderboard who picked what). Voiding stays possible at any time.
    if (resolution !== 'VOID' && nowMs < contest.bettingClosesMs) {
      throw new Conflict(
        'BETTING_OPEN',
        `Betting on this contest is open until ${contest.bettingClosesMs}; resolve its markets after that (VOID is allowed).`,
        {
          market_id: marketId,
          contest_id: contest.id,
          betting_closes_at_ms: contest.bettingClosesMs,
        },
      );
    }
    const status = resolution === 'VOID' ? 'VOIDED' : 'RESOLVED';
    const outcome = resolution === 'VOID' ? null : resolution;
    await repo.setMarketResolution(marketId, status, outcome, nowMs);
    if (outcome === null) {
      await repo.countVoidedLeg(marketId);
    } else {
      const win = winningDirection(outcome);
      const scores = winScores(contest.gameType, outcome, market.upCount, market.downCount);
      await repo.countResolvedLeg(marketId, win, scores);
      if (scores && market.upCount + market.downCount > 0) await rebuildScoreCounts(tx, contest.id);
    }
    const left = await repo.decrementOpenMarkets(contest.id);
    return { market: { ...market, status, outcome }, contestReady: left.open_market_count === 0 };
  });
}

async function loadEntries(em: Em, contestId: string): Promise<SettlingEntry[]> {
  return repos(em).contests.entriesForSettlement(contestId);
}

async function refundAndVoid(tx: Em, contestId: string, refund: Posting | null, nowMs: number): Promise<void> {
  if (refund) await post(tx, refund);
  await repos(tx).contests.markVoided(contestId, nowMs);
}

/** Operator: void an open contest and refund every entry (read, planVoid decides, write). */
export async function voidContest(em: Em, contestId: string, nowMs = Date.now()): Promise<void> {
  await em.transactional(async (tx) => {
    const c = await loadContest(tx, contestId, { forUpdate: true });
    const { refund } = planVoid(c, c.status === 'open' ? await loadEntries(tx, c.id) : []);
    await refundAndVoid(tx, c.id, refund, nowMs);
  });
}

export type ContestResolutionOutcome = 'resolved' | 'voided' | 'not_ready' | 'already_settled' | 'missing';

/**
 * Resolves and pays a contest whose markets are all settled (read under the contest's lock, planResolution
 * decides, write). Safe to run any number of times.
 */
export async function resolveContest(em: Em, contestId: string, nowMs = Date.now()): Promise<ContestResolutionOutcome> {
  return em.transactional(async (tx) => {
    let c: ContestRecord;
    try {
      c = await loadContest(tx, contestId, { forUpdate: true });
    } catch (err) {
      if (err instanceof NotFound) return 'missing';
      throw err;
    }
    const repo = repos(tx).contests;
    // A contest no longer open reads nothing more: the plan answers already_settled from its status alone.
    const markets = c.status === 'open' ? await repo.marketStatuses(contestId) : [];
    const entries = c.status === 'open' && !markets.some((m) => m.status === 'OPEN') ? await loadEntries(tx, contestId) : [];
    const plan = planResolution(c, markets, entries);
    if (plan.kind === 'voided') await refundAndVoid(tx, c.id, plan.refund, nowMs);
    if (plan.kind !== 'resolved') return plan.kind;
    if (plan.payout) await post(tx, plan.payout);
    if (plan.payouts) await repo.setPayouts(plan.payouts.ids, plan.payouts.amounts, plan.payouts.ranks);
    await repo.markResolved(contestId, nowMs);
    return 'resolved';
  });
}

/** Open contests whose every market is settled (the relay re-enqueues their resolution). */
export async function contestsAwaitingResolution(em: Em, limit = 100): Promise<string[]> {
  return (await repos(em).contests.awaitingResolution(limit)).map((r) => r.id);
}
