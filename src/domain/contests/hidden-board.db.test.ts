// Hidden picks stay hidden on the leaderboard (spec/openapi.yaml getContestLeaderboard "Hidden picks"): while a
// hidden_while_betting_open contest takes entries, no row reports anything that depends on picks, even for a
// market that was resolved (an outcome before the close is refused now; this one is resolved with a clock past
// the close, as data written before that rule, or by a skewed clock, would be). On real PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { fundedUser } from '../../testing/funding.js';
import { leaderboard, leaderboardTop } from './board.js';
import { createContest } from './create.js';
import { enterContest, type PickInput } from './entries.js';
import { loadMarkets } from './records.js';
import { resolveMarket } from './resolution.js';
import { inTransaction } from '../../db/unit-of-work.js';

let t: MigratedOrm;
// An entry as the handler makes it: in a transaction, under an idempotency key.
const enter = (userId: string, contestId: string, picks: PickInput[]) =>
  inTransaction(t.orm.em.fork(), (tx) => enterContest(tx, userId, contestId, picks, randomUUID()));
beforeAll(async () => {
  t = await migratedOrm('hiddenboard');
});
afterAll(async () => t?.close());
const em = () => t.orm.em.fork();
const user = () => fundedUser(em, `0x${randomUUID().replace(/-/g, '')}abcdefab`, 1_000n, { handle: `u${randomUUID().slice(0, 8)}` });

describe('leaderboard of a contest with hidden picks', () => {
  it('reports rank 1, 0 resolved wins and every pick open until betting closes; the real figures after', async () => {
    const closesAt = Date.now() + 60_000;
    const id = await createContest(em(), {
      title: 'Hidden',
      category: 'sports',
      gameType: 'lineups',
      betAmount: 100n,
      prizePool: 0n,
      entryCap: 10,
      maxEntriesPerUser: 1,
      bettingClosesMs: closesAt,
      betType: { kind: 'num_bets', value: 2 },
      winningSplitBps: [10_000],
      entryVisibility: 'hidden_while_betting_open',
      markets: [
        { category: 'a', name: 'A' },
        { category: 'b', name: 'B' },
      ],
    });
    const [m1, m2] = (await loadMarkets(em(), id)).map((m) => m.marketId) as [number, number];
    const [a, b] = [await user(), await user()];
    await enter(a, id, [
      { marketId: m1, direction: 'up' },
      { marketId: m2, direction: 'up' },
    ]);
    await enter(b, id, [
      { marketId: m1, direction: 'down' },
      { marketId: m2, direction: 'up' },
    ]);
    await expect(resolveMarket(em(), m1, 'YES')).rejects.toMatchObject({ status: 409, code: 'BETTING_OPEN' });
    await resolveMarket(em(), m1, 'YES', closesAt + 1);

    const hidden = await leaderboard(em(), id, 10, b);
    const shape = (rows: typeof hidden.entries) => rows.map((r) => [r.userId, r.rank, r.resolvedWinCount, r.openLegCount]);
    expect(shape(hidden.entries).sort()).toEqual(
      [
        [a, 1, 0, 2],
        [b, 1, 0, 2],
      ].sort(),
    );

    const shown = (await leaderboardTop(em(), id, 10, closesAt + 1)).entries;
    expect(shape(shown)).toEqual([
      [a, 1, 1, 1],
      [b, 2, 0, 1],
    ]);
  });
});
