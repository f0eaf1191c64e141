// Market resolution, contest resolution and payouts, voiding (docs/getting-started.md, Contests).
//   resolveMarket(): the operator sets a market's outcome; every entry picking it gets its leg counted in the
//     same transaction (won legs, and the score: lineups every win, outcast only wins on the minority side).
//   resolveContest(): run by the `contests` worker once no market is OPEN. Locks the contest and does nothing
//     unless it is still open, so a second run (retry, duplicate job, relay) pays nothing twice. Ranks every
//     entry, splits the pot, and posts one ledger transaction: reserved bets and the protocol prize pool into
//     the contest's pot, payouts out to winners' available balances, the remainder to the treasury.
//   voidContest(): refunds every entry's bet from reserved to available and marks the contest voided; a
//     contest whose every market was voided is voided the same way by resolveContest().
import type { Em } from '../../db/orm.js';
import { db } from '../../db/schema.js';
import { contestsRepository, type ContestsRepository } from '../../db/repositories/contests.repository.js';
import { Conflict, NotFound } from '../errors.js';
import { post, type Posting } from '../ledger/ledger.js';
import { loadContest, marketFromRow, rebuildScoreCounts, type ContestMarketRecord, type ContestRecord } from './records.js';
import { rankEntries, splitPot, totalPot, winScores, winningDirection } from './scoring.js';

export type MarketResolution = 'YES' | 'NO' | 'VOID';

export interface ResolvedMarket {
  market: ContestMarketRecord;
  /** True when this was the contest's last OPEN market: the contest is ready to be resolved. */
  contestReady: boolean;
}

const alreadySettled = (c: ContestRecord) =>
  new Conflict('CONTEST_ALREADY_SETTLED', `This contest is already ${c.status}.`, { contest_id: c.id, status: c.status });

export async function resolveMarket(em: Em, marketId: number, resolution: MarketResolution, nowMs = Date.now()): Promise<ResolvedMarket> {
  return em.transactional(async (tx) => {
    const repo = contestsRepository(db(tx));
    const owner = await repo.marketOwner(marketId);
    if (!owner) throw new NotFound('MARKET_NOT_FOUND', `No contest market has the id ${marketId}.`);
    // Contest first, then market: the same lock order as entries, resolution and voiding.
    const contest = await loadContest(tx, owner.contest_id, { forUpdate: true });
    const market = marketFromRow((await repo.marketForUpdate(marketId))!);
    if (market.status !== 'OPEN') {
      throw new Conflict('MARKET_ALREADY_RESOLVED', `This market is already ${market.status}${market.outcome ? ` (${market.outcome})` : ''}.`, {
        market_id: marketId,
        status: market.status,
        outcome: market.outcome,
      });
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

type EntryRow = Awaited<ReturnType<ContestsRepository['entriesForSettlement']>>[number];

async function loadEntries(em: Em, contestId: string): Promise<EntryRow[]> {
  return contestsRepository(db(em)).entriesForSettlement(contestId);
}

/** Bets per user: sum of bet_amount over the user's entries. */
function betsByUser(entries: readonly EntryRow[], bet: bigint): Map<string, bigint> {
  const m = new Map<string, bigint>();
  for (const e of entries) m.set(e.user_id, (m.get(e.user_id) ?? 0n) + bet);
  return m;
}

async function refundAndVoid(tx: Em, c: ContestRecord, nowMs: number): Promise<void> {
  const entries = await loadEntries(tx, c.id);
  const byUser = betsByUser(entries, c.betAmount);
  if (byUser.size) {
    const p: Posting = { kind: 'contest_refund', reference: c.id, entries: [] };
    for (const [userId, amount] of byUser) {
      p.entries.push({ account: { userId, kind: 'user_reserved' }, amount: -amount }, { account: { userId, kind: 'user_available' }, amount });
    }
    await post(tx, p);
  }
  await contestsRepository(db(tx)).markVoided(c.id, nowMs);
}

/** Operator: void an open contest and refund every entry. */
export async function voidContest(em: Em, contestId: string, nowMs = Date.now()): Promise<void> {
  await em.transactional(async (tx) => {
    const c = await loadContest(tx, contestId, { forUpdate: true });
    if (c.status !== 'open') throw alreadySettled(c);
    await refundAndVoid(tx, c, nowMs);
  });
}

export type ContestResolutionOutcome = 'resolved' | 'voided' | 'not_ready' | 'already_settled' | 'missing';

/** Resolves and pays a contest whose markets are all settled. Safe to run any number of times. */
export async function resolveContest(em: Em, contestId: string, nowMs = Date.now()): Promise<ContestResolutionOutcome> {
  return em.transactional(async (tx) => {
    let c: ContestRecord;
    try {
      c = await loadContest(tx, contestId, { forUpdate: true });
    } catch (err) {
      if (err instanceof NotFound) return 'missing';
      throw err;
    }
    if (c.status !== 'open') return 'already_settled';
    const repo = contestsRepository(db(tx));
    const markets = await repo.marketStatuses(contestId);
    if (markets.some((m) => m.status === 'OPEN')) return 'not_ready';
    if (markets.every((m) => m.status === 'VOIDED')) {
      await refundAndVoid(tx, c, nowMs);
      return 'voided';
    }
    const entries = await loadEntries(tx, contestId);
    const ranked = rankEntries(entries.map((e) => ({ id: e.id, userId: e.user_id, score: e.score, createdAtMs: e.created_at_ms })));
    const pot = totalPot(c.prizePool, entries.length, c.betAmount);
    const { payouts, remainder } = splitPot(pot, c.winningSplitBps, ranked);
    if (entries.length) {
      const p: Posting = { kind: 'contest_payout', reference: contestId, entries: [] };
      const bets = c.betAmount * BigInt(entries.length);
      for (const [userId, amount] of betsByUser(entries, c.betAmount))
        p.entries.push({ account: { userId, kind: 'user_reserved' }, amount: -amount });
      p.entries.push({ account: { pot: contestId }, amount: bets });
      if (c.prizePool > 0n)
        p.entries.push({ account: { system: 'treasury' }, amount: -c.prizePool }, { account: { pot: contestId }, amount: c.prizePool });
      const won = new Map<string, bigint>();
      for (const e of ranked) {
        const amount = payouts.get(e.id) ?? 0n;
        if (amount > 0n) won.set(e.userId, (won.get(e.userId) ?? 0n) + amount);
      }
      const paid = [...won.values()].reduce((a, b) => a + b, 0n);
      for (const [userId, amount] of won) p.entries.push({ account: { userId, kind: 'user_available' }, amount });
      if (paid > 0n) p.entries.push({ account: { pot: contestId }, amount: -paid });
      if (remainder > 0n) p.entries.push({ account: { pot: contestId }, amount: -remainder }, { account: { system: 'treasury' }, amount: remainder });
      await post(tx, p);
      await repo.setPayouts(
        ranked.map((e) => e.id),
        ranked.map((e) => payouts.get(e.id) ?? 0n),
        ranked.map((e) => e.rank),
      );
    }
    await repo.markResolved(contestId, nowMs);
    return 'resolved';
  });
}

/** Open contests whose every market is settled (the relay re-enqueues their resolution). */
export async function contestsAwaitingResolution(em: Em, limit = 100): Promise<string[]> {
  return (await contestsRepository(db(em)).awaitingResolution(limit)).map((r) => r.id);
}
