// An outcast contest through the generated client: only won picks on the side fewer entries chose score, a
// market with equal counts has no minority, and a voided contest keeps payouts and the profile rank null.
import { describe, expect, it } from 'vitest';
import { getContestLeaderboard, getContestTopParticipants, getProfileContest, voidContest } from '../generated/openapi/sdk.gen.ts';
import { balances, enter, MICRO, newContest, newUser, resolve, useContestService, waitForStatus, type User } from './contests-fixtures.ts';

const env = useContestService('contests-outcast');

describe('an outcast contest', () => {
  it('only won picks on the side fewer entries chose score; pick outcomes still follow the market', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => newUser(env, { fund: MICRO, handle: true })));
    const [x, y, z, w] = users as [User, User, User, User];
    // Pot 4 x 1, split 70/30, entries visible at all times.
    const c = await newContest(env, {
      game_type: 'outcast',
      protocol_prize_pool_micros: 0,
      winning_split_bps: [7000, 3000],
      entry_visibility: 'visible',
    });
    await enter(x, c, 'uu');
    await enter(y, c, 'uu');
    await enter(z, c, 'du');
    await enter(w, c, 'ud');
    const before = (
      await env.anon.run(getProfileContest({ client: env.anon.client, path: { handle: z.handle!, id: c.contest_id } }), { status: 200 })
    ).data!;
    expect(before.profile_owner).toMatchObject({
      joined: true,
      entry_visibility: 'visible',
      entries: [expect.objectContaining({ open_leg_count: 2, rank: 1 })],
    });
    expect(before.profile_owner.entries[0]!.picks.map((p) => p.outcome)).toEqual(['pending', 'pending']);
    // Market 1: down is the minority (1 of 4) and wins -> z scores. Market 2: up is the majority and wins -> nobody scores.
    await resolve(env, c.markets[0]!.market_id, 'NO');
    await resolve(env, c.markets[1]!.market_id, 'YES');
    await waitForStatus(env, c.contest_id, 'resolved');
    const lb = (await env.anon.run(getContestLeaderboard({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
    // z: 1 point, rank 1, 70% of 4; x, y, w tied at rank 2 share positions 2-4 (30%): 400 000 each.
    expect(lb.entries.map((r) => [r.user_id, r.rank, r.resolved_win_count, r.payout_micros, r.net_payout_micros])).toEqual([
      [z.userId, 1, 2, 2_800_000, 1_800_000],
      [x.userId, 2, 1, 400_000, -600_000],
      [y.userId, 2, 1, 400_000, -600_000],
      [w.userId, 2, 0, 400_000, -600_000],
    ]);
    const pz = (
      await env.anon.run(getProfileContest({ client: env.anon.client, path: { handle: z.handle!, id: c.contest_id } }), { status: 200 })
    ).data!;
    expect(pz.profile_owner.entries[0]!.picks.map((p) => p.outcome)).toEqual(['won', 'won']);
    const px = (
      await env.anon.run(getProfileContest({ client: env.anon.client, path: { handle: x.handle!, id: c.contest_id } }), { status: 200 })
    ).data!;
    expect(px.profile_owner.entries[0]!.picks.map((p) => p.outcome)).toEqual(['lost', 'won']);
    // Top participants of outcast/mentions: z won (net > 0); the others were paid but lost money.
    const top = (await env.anon.run(getContestTopParticipants({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 }))
      .data!;
    expect(top.participants.map((p) => [p.user_id, p.won_count, p.total_winnings_micros])).toEqual([
      [z.userId, 1, 2_800_000],
      ...[x, y, w]
        .map((u) => u.userId)
        .sort()
        .map((id) => [id, 0, 400_000]),
    ]);
  });
});

describe('outcast ties and voided contests', () => {
  it('outcast: a market with equal up and down counts has no minority, so nobody scores and everyone shares', async () => {
    const [x, y] = await Promise.all([newUser(env, { fund: MICRO }), newUser(env, { fund: MICRO })]);
    const c = await newContest(env, {
      game_type: 'outcast',
      protocol_prize_pool_micros: 0,
      winning_split_bps: [10000],
      bet_type: { kind: 'num_bets', value: 1 },
      markets: [{ category: 'a', name: 'even' }],
    });
    await enter(x, c, 'u');
    await enter(y, c, 'd');
    await resolve(env, c.markets[0]!.market_id, 'YES');
    await waitForStatus(env, c.contest_id, 'resolved');
    const lb = (await env.anon.run(getContestLeaderboard({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
    expect(lb.entries.map((r) => [r.user_id, r.rank, r.resolved_win_count, r.payout_micros, r.net_payout_micros])).toEqual([
      [x.userId, 1, 1, MICRO, 0],
      [y.userId, 1, 0, MICRO, 0],
    ]);
  });

  it('voided: payouts stay null on the leaderboard and the profile, the profile rank is null', async () => {
    const [x, y] = await Promise.all([newUser(env, { fund: MICRO, handle: true }), newUser(env, { fund: MICRO })]);
    const c = await newContest(env, { entry_visibility: 'visible' });
    await enter(x, c, 'uu');
    await enter(y, c, 'dd');
    await resolve(env, c.markets[0]!.market_id, 'YES');
    const live = (await env.anon.run(getContestLeaderboard({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 }))
      .data!;
    expect(live.entries.map((r) => [r.user_id, r.rank, r.payout_micros])).toEqual([
      [x.userId, 1, null],
      [y.userId, 2, null],
    ]);
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), { status: 200 });
    const lb = (await env.anon.run(getContestLeaderboard({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
    expect(lb.entries.map((r) => [r.payout_micros, r.net_payout_micros])).toEqual([
      [null, null],
      [null, null],
    ]);
    const p = (
      await env.anon.run(getProfileContest({ client: env.anon.client, path: { handle: x.handle!, id: c.contest_id } }), { status: 200 })
    ).data!;
    expect(p.status).toBe('voided');
    expect(p.profile_owner.entries).toEqual([expect.objectContaining({ rank: null, payout_micros: null, net_payout_micros: null })]);
    expect(await balances(x)).toEqual({ available: MICRO, reserved: 0 });
  });
});
