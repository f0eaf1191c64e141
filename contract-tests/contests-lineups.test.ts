// A lineups contest played from entry to payout through the generated client (ranks 1, 2, 2, 4): every
// documented status of getContestLeaderboard, getContestTopParticipants, getContestPopularEntry and
// getProfileContest before and after betting closes and once resolved, except 500/503 (pending).
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  getContestLeaderboard,
  getContestPopularEntry,
  getContestTopParticipants,
  getProfileContest,
} from '../generated/openapi/sdk.gen.ts';
import type { ContestById, Leaderboard, LeaderboardRow } from '../generated/openapi/types.gen.ts';
import { type ContractClient } from './harness.ts';
import {
  balances,
  enter,
  MICRO,
  newContest,
  newUser,
  resolve,
  sleepUntil,
  useContestService,
  allPages,
  waitForStatus,
  type User,
} from './contests-fixtures.ts';

const env = useContestService('contests-lineups');

describe('a lineups contest from entries to payouts', () => {
  // Pot 2 + 4 x 1 = 6 USDC, split 60/30/10. Markets resolve YES, YES, NO:
  //   a uuu: 2 wins, b uud: 3 wins, c udd: 2 wins, d ddd: 1 win -> ranks b 1, a 2, c 2, d 4;
  //   b gets 3.6, a and c share positions 2 and 3 (40%): 1.2 each, d 0.
  let a: User, b: User, c: User, d: User, outsider: User;
  let contest: ContestById;
  const board = async (query: { limit?: number } = {}, api: ContractClient = env.anon): Promise<Leaderboard> =>
    (await api.run(getContestLeaderboard({ client: api.client, path: { id: contest.contest_id }, query }), { status: 200 })).data!;
  const profile = async (handle: string) =>
    (await env.anon.run(getProfileContest({ client: env.anon.client, path: { handle, id: contest.contest_id } }), { status: 200 })).data!;
  const brief = (r: LeaderboardRow) => [r.user_id, r.rank, r.resolved_win_count, r.open_leg_count, r.payout_micros, r.net_payout_micros];

  beforeAll(async () => {
    [a, b, c, d, outsider] = await Promise.all([
      newUser(env, { fund: 2 * MICRO, handle: true, twitter: `ann_${randomBytes(3).toString('hex')}` }),
      newUser(env, { fund: 2 * MICRO, handle: true }),
      newUser(env, { fund: 2 * MICRO, handle: true }),
      newUser(env, { fund: 2 * MICRO, handle: true }),
      newUser(env, { handle: true }),
    ]);
    contest = await newContest(env, {
      protocol_prize_pool_micros: 2 * MICRO,
      betting_closes_ms: Date.now() + 4000,
      bet_type: { kind: 'num_bets', value: 3 },
      markets: [
        { category: 'words', name: 'one' },
        { category: 'words', name: 'two' },
        { category: 'words', name: 'three' },
      ],
    });
    for (const [u, dirs] of [
      [a, 'uuu'],
      [b, 'uud'],
      [c, 'udd'],
      [d, 'ddd'],
    ] as const) {
      await enter(u, contest, dirs);
    }
  });

  it('getProfileContest 200 before betting closes: joined alone tells, entries hidden; handles match case-insensitively', async () => {
    const p = await profile(a.handle!.toUpperCase());
    expect(p.profile_owner).toEqual({ joined: true, entry_visibility: 'hidden_while_betting_open', entries: [] });
    expect(p).toMatchObject({
      contest_id: contest.contest_id,
      status: 'open',
      game_type: 'lineups',
      entries_filled: 4,
      total_pot_micros: 6 * MICRO,
      resolved_at_ms: null,
    });
    expect(p).not.toHaveProperty('caller');
    expect(p.markets.map((m) => m.market_id)).toEqual(contest.markets.map((m) => m.market_id));
    expect((await profile(outsider.handle!)).profile_owner).toEqual({
      joined: false,
      entry_visibility: 'hidden_while_betting_open',
      entries: [],
    });
  });

  it('getContestPopularEntry 200 before betting closes: hidden_while_betting_open, no counts', async () => {
    const { data } = await env.anon.run(getContestPopularEntry({ client: env.anon.client, path: { id: contest.contest_id } }), {
      status: 200,
    });
    expect(data).toEqual({ total_entries: 4, entry_visibility: 'hidden_while_betting_open', markets: [] });
  });

  it('getContestLeaderboard 200 while open: everyone tied at rank 1, payouts null; limit clamped; caller.rows outside the top slice', async () => {
    const all = await board();
    expect(all.total_entries).toBe(4);
    expect(all.caller).toBeNull();
    expect(all.entries.map(brief)).toEqual([a, b, c, d].map((u) => [u.userId, 1, 0, 3, null, null]));
    expect(all.entries.map((r) => r.entry_index)).toEqual([0, 0, 0, 0]);
    expect(all.entries.map((r) => r.handle)).toEqual([a, b, c, d].map((u) => u.handle));
    expect(all.entries[0]!.x_handle).toMatch(/^ann_/);
    expect(all.entries[1]!.x_handle).toBeNull();
    expect((await board({ limit: 0 })).entries.map((r) => r.user_id)).toEqual([a.userId]);
    expect((await board({ limit: 1000 })).entries).toEqual(all.entries);
    const asD = await board({ limit: 2 }, d.api);
    expect(asD.entries.map((r) => r.user_id)).toEqual([a.userId, b.userId]);
    expect(asD.caller).toEqual({ rows: [all.entries[3]] });
    expect((await board({ limit: 2 }, a.api)).caller).toEqual({ rows: [] });
    expect((await board({ limit: 2 }, outsider.api)).caller).toEqual({ rows: [] });
  });

  it('after the first market: ranks follow won picks (1, 1, 1, 4)', async () => {
    await resolve(env, contest.markets[0]!.market_id, 'YES');
    const after = await board();
    expect(after.entries.map(brief)).toEqual([
      [a.userId, 1, 1, 2, null, null],
      [b.userId, 1, 1, 2, null, null],
      [c.userId, 1, 1, 2, null, null],
      [d.userId, 4, 0, 2, null, null],
    ]);
  });

  it('getProfileContest 200 once betting closed: entries and picks visible, outcomes per market', async () => {
    await sleepUntil(contest.betting_closes_ms + 50);
    const p = await profile(a.handle!);
    const [m1, m2, m3] = contest.markets.map((m) => m.market_id);
    expect(p.profile_owner).toEqual({
      joined: true,
      entry_visibility: 'visible',
      entries: [
        {
          entry_index: 0,
          created_at_ms: expect.any(Number),
          picks: [
            { market_id: m1, direction: 'up', outcome: 'won' },
            { market_id: m2, direction: 'up', outcome: 'pending' },
            { market_id: m3, direction: 'up', outcome: 'pending' },
          ],
          open_leg_count: 2,
          resolved_win_count: 1,
          payout_micros: null,
          net_payout_micros: null,
          rank: 1,
        },
      ],
    });
    expect((await profile(outsider.handle!)).profile_owner).toEqual({ joined: false, entry_visibility: 'visible', entries: [] });
  });

  it('getContestPopularEntry 200 once betting closed: up and down counts per market', async () => {
    const { data } = await env.anon.run(getContestPopularEntry({ client: env.anon.client, path: { id: contest.contest_id } }), {
      status: 200,
    });
    const [m1, m2, m3] = contest.markets.map((m) => m.market_id);
    expect(data).toEqual({
      total_entries: 4,
      entry_visibility: 'visible',
      markets: [
        { market_id: m1, yes_count: 3, no_count: 1 },
        { market_id: m2, yes_count: 2, no_count: 2 },
        { market_id: m3, yes_count: 1, no_count: 3 },
      ],
    });
  });

  it('resolved: resolved_at_ms set, leaderboard with payouts (1, 2, 2, 4), profile with rank and payout, winnings in available', async () => {
    await resolve(env, contest.markets[1]!.market_id, 'YES');
    await resolve(env, contest.markets[2]!.market_id, 'NO');
    const done = await waitForStatus(env, contest.contest_id, 'resolved');
    expect(done.resolved_at_ms).toBeGreaterThanOrEqual(done.created_at_ms);
    expect(done.markets.map((m) => [m.status, m.outcome])).toEqual([
      ['RESOLVED', 'YES'],
      ['RESOLVED', 'YES'],
      ['RESOLVED', 'NO'],
    ]);
    const final = await board();
    expect(final.entries.map(brief)).toEqual([
      [b.userId, 1, 3, 0, 3_600_000, 2_600_000],
      [a.userId, 2, 2, 0, 1_200_000, 200_000],
      [c.userId, 2, 2, 0, 1_200_000, 200_000],
      [d.userId, 4, 1, 0, 0, -1_000_000],
    ]);
    const asD = await board({ limit: 3 }, d.api);
    expect(asD.caller).toEqual({ rows: [final.entries[3]] });

    const pa = await profile(a.handle!);
    expect(pa.status).toBe('resolved');
    expect(pa.resolved_at_ms).toBe(done.resolved_at_ms);
    expect(pa.profile_owner.entries).toEqual([
      expect.objectContaining({
        picks: [
          { market_id: contest.markets[0]!.market_id, direction: 'up', outcome: 'won' },
          { market_id: contest.markets[1]!.market_id, direction: 'up', outcome: 'won' },
          { market_id: contest.markets[2]!.market_id, direction: 'up', outcome: 'lost' },
        ],
        open_leg_count: 0,
        resolved_win_count: 2,
        payout_micros: 1_200_000,
        net_payout_micros: 200_000,
        rank: 2,
      }),
    ]);
    expect((await profile(d.handle!)).profile_owner.entries[0]).toMatchObject({ rank: 4, payout_micros: 0, net_payout_micros: -1_000_000 });
    expect(await balances(b)).toEqual({ available: MICRO + 3_600_000, reserved: 0 });
    expect(await balances(d)).toEqual({ available: MICRO, reserved: 0 });
    const resolvedRows = await allPages(env.anon, { status: 'resolved' });
    expect(resolvedRows.find((r) => r.contest_id === contest.contest_id)).toMatchObject({
      status: 'resolved',
      resolved_at_ms: done.resolved_at_ms,
    });
  });

  it('getContestTopParticipants 200: payouts of the window for the same category and game type', async () => {
    const top = async (id: string, query: { window_ms?: number; limit?: number } = {}) =>
      (await env.anon.run(getContestTopParticipants({ client: env.anon.client, path: { id }, query }), { status: 200 })).data!;
    const final = await board();
    const row = (u: User, total: number) => {
      const r = final.entries.find((e) => e.user_id === u.userId)!;
      return {
        user_id: u.userId,
        handle: u.handle,
        x_handle: r.x_handle,
        x_avatar_url: r.x_avatar_url,
        avatar_seed: r.avatar_seed,
        won_count: 1,
        total_winnings_micros: total,
      };
    };
    const [ac1, ac2] = [a, c].sort((x, y) => (x.userId < y.userId ? -1 : 1));
    const expected = { window_ms: 604_800_000, participants: [row(b, 3_600_000), row(ac1!, 1_200_000), row(ac2!, 1_200_000)] };
    const got = await top(contest.contest_id);
    expect(got).toEqual(expected);
    expect((await top(contest.contest_id, { limit: 1 })).participants.map((p) => p.user_id)).toEqual([b.userId]);
    expect((await top(contest.contest_id, { limit: 0 })).participants).toHaveLength(1);
    expect((await top(contest.contest_id, { limit: 1000 })).participants).toHaveLength(3);
    // Any contest of the same category and game type answers the same ranking; another kind does not.
    const sibling = await newContest(env);
    expect((await top(sibling.contest_id)).participants.map((p) => p.user_id)).toEqual(got.participants.map((p) => p.user_id));
    expect((await top((await newContest(env, { category: 'sports' })).contest_id)).participants).toEqual([]);
    expect(await top(contest.contest_id, { window_ms: 1 })).toEqual({ window_ms: 1, participants: [] });
  });
});
