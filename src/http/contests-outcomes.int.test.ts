// Contest outcomes through the real service (src/testing/contest-service.ts): outcast scoring, ties,
// voided markets and contests, and concurrent resolution runs paying once. The ledger check runs after every scenario.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveContest } from '../domain/contests/resolution.js';
import {
  createContestEntry,
  getContestLeaderboard,
  getProfileContest,
  resolveMarket,
  voidContest,
} from '../../generated/openapi/sdk.gen.js';
import { send } from '../testing/sdk-client.js';
import {
  balances,
  client,
  createContest,
  enter,
  fundedUser,
  payoutTransactions,
  sleep,
  untilClosed,
  useContestService,
  waitForStatus,
} from '../testing/contest-service.js';

const s = useContestService('contestsout');
const resolve = (marketId: number, outcome: 'YES' | 'NO' | 'VOID') =>
  send(resolveMarket({ client: client(s.operator), path: { market_id: marketId }, body: { outcome } }));
const voidIt = (id: string) => send(voidContest({ client: client(s.operator), path: { id } }));

describe('outcast scoring, ties and voids', () => {
  it('outcast: only wins on the minority side score; a pick still shows won; tied entries share their positions', async () => {
    const [a, b, cc] = await Promise.all([fundedUser(500_000), fundedUser(500_000), fundedUser(500_000)]);
    const c = await createContest({
      game_type: 'outcast',
      category: 'sports',
      winning_split_bps: [7000, 2000, 1000],
      betting_closes_ms: Date.now() + 2_000,
    });
    const [m1, m2] = c.markets.map((m) => m.market_id) as [number, number];
    expect(
      (
        await enter(a, c.contest_id, [
          [m1, 'up'],
          [m2, 'down'],
        ])
      ).status,
    ).toBe(201);
    expect(
      (
        await enter(b, c.contest_id, [
          [m1, 'up'],
          [m2, 'up'],
        ])
      ).status,
    ).toBe(201);
    expect(
      (
        await enter(cc, c.contest_id, [
          [m1, 'down'],
          [m2, 'up'],
        ])
      ).status,
    ).toBe(201);
    // m1 NO: c wins alone on the minority side (1 down vs 2 up) and scores. m2 YES: b and c win on the majority side: no score.
    await untilClosed(c);
    expect((await resolve(m1, 'NO')).status).toBe(200);
    expect((await resolve(m2, 'YES')).status).toBe(200);
    await waitForStatus(c.contest_id, 'resolved');
    const board = await send(getContestLeaderboard({ client: client(), path: { id: c.contest_id } }));
    const rows = board.data!.entries.map((r) => [r.user_id, r.rank, r.resolved_win_count, r.payout_micros]);
    // Pot 300,000: c 70%; a and b tied at rank 2 share positions 2 and 3 (20% + 10%) equally.
    expect(rows).toEqual([
      [cc.userId, 1, 2, 210_000],
      [a.userId, 2, 0, 45_000],
      [b.userId, 2, 1, 45_000],
    ]);
    await sleep(Math.max(0, c.betting_closes_ms - Date.now()) + 20);
    const profile = await send(getProfileContest({ client: client(), path: { handle: b.handle, id: c.contest_id } }));
    expect(profile.data!.profile_owner.entries[0]!.picks.map((p) => p.outcome)).toEqual(['lost', 'won']);
    expect(await balances(cc)).toEqual({ available: 400_000 + 210_000, reserved: 0 });
  });

  it('every market voided: the contest is voided and every bet refunded', async () => {
    const c = await createContest({ bet_type: { kind: 'num_bets', value: 1 } });
    const [m1, m2] = c.markets.map((m) => m.market_id) as [number, number];
    const [a, b] = await Promise.all([fundedUser(300_000), fundedUser(300_000)]);
    await enter(a, c.contest_id, [[m1, 'up']]);
    await enter(b, c.contest_id, [[m2, 'down']]);
    expect(await balances(a)).toEqual({ available: 200_000, reserved: 100_000 });
    expect((await resolve(m1, 'VOID')).data).toMatchObject({ status: 'VOIDED', outcome: null });
    await resolve(m2, 'VOID');
    const voided = await waitForStatus(c.contest_id, 'voided');
    expect(voided.resolved_at_ms).toBeNull();
    expect(await balances(a)).toEqual({ available: 300_000, reserved: 0 });
    expect(await balances(b)).toEqual({ available: 300_000, reserved: 0 });
  });

  it('operator void refunds every entry once; a second void and a later resolution are 409', async () => {
    const c = await createContest({ max_entries_per_user: 2 });
    const [m1, m2] = c.markets.map((m) => m.market_id) as [number, number];
    const a = await fundedUser(500_000);
    await enter(a, c.contest_id, [
      [m1, 'up'],
      [m2, 'up'],
    ]);
    await enter(a, c.contest_id, [
      [m1, 'down'],
      [m2, 'up'],
    ]);
    expect(await balances(a)).toEqual({ available: 300_000, reserved: 200_000 });
    const v = await voidIt(c.contest_id);
    expect(v.status).toBe(200);
    expect(v.data).toMatchObject({ status: 'voided', entries_filled: 2 });
    expect(await balances(a)).toEqual({ available: 500_000, reserved: 0 });
    expect((await voidIt(c.contest_id)).error?.code).toBe('CONTEST_ALREADY_SETTLED');
    expect((await resolve(m1, 'YES')).error?.code).toBe('CONTEST_ALREADY_SETTLED');
    const late = await send(
      createContestEntry({
        client: client(a.token),
        path: { id: c.contest_id },
        body: {
          picks: [
            { market_id: m1, direction: 'up' },
            { market_id: m2, direction: 'up' },
          ],
          idempotency_key: randomUUID(),
        },
      }),
    );
    expect(late.error?.code).toBe('ENTRY_NOT_OPEN');
    expect(await payoutTransactions(c.contest_id)).toBe(1);
  });

  it('concurrent resolution runs pay once', async () => {
    const [a, b] = await Promise.all([fundedUser(200_000), fundedUser(200_000)]);
    const c = await createContest({
      bet_type: { kind: 'num_bets', value: 1 },
      markets: [{ category: 'x', name: 'only' }],
      protocol_prize_pool_micros: 50_000,
      betting_closes_ms: Date.now() + 2_000,
    });
    const m = c.markets[0]!.market_id;
    await enter(a, c.contest_id, [[m, 'up']]);
    await enter(b, c.contest_id, [[m, 'down']]);
    await untilClosed(c);
    const [res, ...runs] = await Promise.all([
      resolve(m, 'YES'),
      ...Array.from({ length: 4 }, async () => {
        await sleep(5);
        return resolveContest(s.orm.em.fork(), c.contest_id);
      }),
    ]);
    expect(res.status).toBe(200);
    await waitForStatus(c.contest_id, 'resolved');
    expect(runs.filter((r) => r === 'resolved').length).toBeLessThanOrEqual(1);
    expect(await payoutTransactions(c.contest_id)).toBe(1);
    // Pot 250,000: a ranks 1 (60%), b 2 (30%), 10% to the protocol.
    expect(await balances(a)).toEqual({ available: 100_000 + 150_000, reserved: 0 });
    expect(await balances(b)).toEqual({ available: 100_000 + 75_000, reserved: 0 });
  });
});
