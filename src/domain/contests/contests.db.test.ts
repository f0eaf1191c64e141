// Medium tier: a contest's life through the repositories on real PostgreSQL, in-process (no HTTP).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { checkLedger, userBalances } from '../ledger/ledger.js';
import { leaderboard, popularEntry } from './board.js';
import { createContest } from './create.js';
import { enterContest, type PickInput } from './entries.js';
import { listContests } from './lobby.js';
import { loadContest, loadMarkets } from './records.js';
import { contestsAwaitingResolution, resolveContest, resolveMarket } from './resolution.js';
import { fundedUser as fundTestUser } from '../../testing/funding.js';
import { inTransaction } from '../../db/unit-of-work.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('contests');
});
afterAll(async () => t?.close());
const em = () => t.orm.em.fork();

/** A funded user with a fresh wallet and handle. */
const fundedUser = (micros: bigint) =>
  fundTestUser(em, `0x${randomUUID().replace(/-/g, '')}abcdefab`, micros, { handle: `u${randomUUID().slice(0, 8)}` });

/** One paid entry under a fresh idempotency key, in a transaction of its own (as the createContestEntry handler runs it). */
const enter = (userId: string, contestId: string, picks: PickInput[]) =>
  inTransaction(em(), (tx) => enterContest(tx, userId, contestId, picks, randomUUID()));

describe('contests repository', () => {
  it('creates, lists, takes entries, resolves and pays once', async () => {
    const id = await createContest(em(), {
      title: 'T',
      category: 'sports',
      gameType: 'lineups',
      betAmount: 100n,
      prizePool: 1_000n,
      entryCap: 10,
      maxEntriesPerUser: 1,
      bettingClosesMs: Date.now() + 60_000,
      betType: { kind: 'num_bets', value: 2 },
      winningSplitBps: [7000, 3000],
      entryVisibility: 'visible',
      markets: [
        { category: 'a', name: 'A' },
        { category: 'b', name: 'B', bettingClosesAtMs: Date.now() + 60_000 },
      ],
    });
    const c = await loadContest(em(), id);
    expect(c).toMatchObject({
      status: 'open',
      betAmount: 100n,
      prizePool: 1_000n,
      winningSplitBps: [7000, 3000],
      openMarketCount: 2,
      entryOpensAtMs: null,
    });
    const [m1, m2] = (await loadMarkets(em(), id)).map((m) => m.marketId) as [number, number];
    expect(m2).toBeGreaterThan(m1);
    expect((await listContests(em(), { status: 'open', category: 'sports', limit: 5 })).contests.map((x) => x.id)).toContain(id);

    const [a, b] = [await fundedUser(1_000n), await fundedUser(1_000n)];
    await enter(a, id, [
      { marketId: m1, direction: 'up' },
      { marketId: m2, direction: 'up' },
    ]);
    await enter(b, id, [
      { marketId: m1, direction: 'down' },
      { marketId: m2, direction: 'up' },
    ]);
    expect(await popularEntry(em(), id)).toEqual({
      totalEntries: 2,
      visible: true,
      markets: [
        { marketId: m1, yesCount: 1, noCount: 1 },
        { marketId: m2, yesCount: 2, noCount: 0 },
      ],
    });

    // An outcome waits for the betting close (409 BETTING_OPEN before it); this clock is past it.
    await expect(resolveMarket(em(), m1, 'YES')).rejects.toMatchObject({ status: 409, code: 'BETTING_OPEN' });
    const afterClose = Date.now() + 61_000;
    expect((await resolveMarket(em(), m1, 'YES', afterClose)).contestReady).toBe(false);
    expect((await resolveMarket(em(), m2, 'YES', afterClose)).contestReady).toBe(true);
    expect(await contestsAwaitingResolution(em())).toContain(id);
    expect(await resolveContest(em(), id)).toBe('resolved');
    expect(await resolveContest(em(), id)).toBe('already_settled');
    // Pot 1,200: 70% to a (score 2), 30% to b (score 1).
    expect(await userBalances(em(), a)).toEqual({ available: 900n + 840n, reserved: 0n, appToken: 0n });
    expect(await userBalances(em(), b)).toEqual({ available: 900n + 360n, reserved: 0n, appToken: 0n });
    const board = await leaderboard(em(), id, 10, b);
    expect(board.entries.map((r) => [r.userId, r.rank, r.payout])).toEqual([
      [a, 1, 840n],
      [b, 2, 360n],
    ]);
    expect(board.callerRows).toEqual([]);
    expect(await checkLedger(em())).toEqual([]);
  });
});
