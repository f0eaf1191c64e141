// Contest reads through the generated client: every documented status of listContests, getContest,
// getContestLeaderboard, getContestTopParticipants, getContestPopularEntry and getProfileContest except
// 500/503 (pending); errors.test.ts's framework cases cover their 400s too. A lineups contest is played
// from entry to payout (ranks 1, 2, 2, 4) and an outcast contest scores only minority picks.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  getContest,
  getContestLeaderboard,
  getContestPopularEntry,
  getContestTopParticipants,
  getProfileContest,
  listContests,
  voidContest,
} from '../generated/openapi/sdk.gen.ts';
import type { ContestById, ContestLobbyRow, Leaderboard, LeaderboardRow } from '../generated/openapi/types.gen.ts';
import { expectErrorBody, type ContractClient } from './harness.ts';
import {
  balances,
  enter,
  expectPot,
  MICRO,
  newContest,
  newUser,
  resolve,
  sleepUntil,
  startContestService,
  waitForStatus,
  type Env,
  type User,
} from './contests-fixtures.ts';

let env: Env;
let anon: ContractClient;

beforeAll(async () => {
  env = await startContestService('contests-reads');
  anon = env.svc.client();
});
afterAll(async () => {
  if (env) expect(await env.svc.stop()).toBe(0);
});

type LobbyQuery = { status?: 'open' | 'resolved' | 'voided'; category?: 'mentions' | 'sports' | 'culture'; cursor?: string; limit?: number };
const lobby = async (query: LobbyQuery = {}, api: ContractClient = anon) =>
  (await api.run(listContests({ client: api.client, query }), { status: 200 })).data!;

/** Every page of a listing, following next_cursor. */
async function allPages(query: LobbyQuery, api: ContractClient = anon): Promise<ContestLobbyRow[]> {
  const rows: ContestLobbyRow[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await lobby({ ...query, ...(cursor ? { cursor } : {}) }, api);
    rows.push(...page.contests);
    if (page.next_cursor === null) return rows;
    cursor = page.next_cursor;
  }
  throw new Error('the lobby never ended');
}

const newestFirst = (a: ContestLobbyRow, b: ContestLobbyRow) =>
  b.created_at_ms - a.created_at_ms || (a.contest_id < b.contest_id ? 1 : a.contest_id > b.contest_id ? -1 : 0);

describe('listContests', () => {
  it('200: newest first, keyset pages of the default 20, limit clamped to 1..50, every row a lobby row with the pot rule', async () => {
    const categories = ['mentions', 'sports', 'culture'] as const;
    for (let i = 0; i < 55; i += 11) {
      await Promise.all(Array.from({ length: 11 }, (_, j) => newContest(env, { category: categories[(i + j) % 3]! })));
    }
    const all = await allPages({});
    expect(all.length).toBeGreaterThanOrEqual(55);
    expect(new Set(all.map((r) => r.contest_id)).size).toBe(all.length);
    expect([...all].sort(newestFirst)).toEqual(all);
    for (const row of all) {
      expect(row.caller).toBeNull();
      expect(row.image_url).toBe(`/v1/pool-images/default-${row.category}/raw`);
      expectPot(row);
    }
    const first = await lobby();
    expect(first.contests).toHaveLength(20);
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(first.contests).toEqual(all.slice(0, 20));
    const second = await lobby({ cursor: first.next_cursor! });
    expect(second.contests).toEqual(all.slice(20, 40));

    const one = await lobby({ limit: 0 });
    expect(one.contests).toEqual(all.slice(0, 1));
    expect((await lobby({ limit: -7 })).contests).toHaveLength(1);
    const max = await lobby({ limit: 500 });
    expect(max.contests).toEqual(all.slice(0, 50));
    expect(max.next_cursor).not.toBeNull();
    const last = await lobby({ limit: 50, cursor: max.next_cursor! });
    expect(last.contests).toEqual(all.slice(50, 100));
    if (all.length <= 100) expect(last.next_cursor).toBeNull();

    // A contest created after the first page does not shift the next one (the cursor is a position).
    const fresh = await newContest(env);
    expect((await lobby({ cursor: first.next_cursor! })).contests).toEqual(all.slice(20, 40));
    expect((await lobby({ limit: 1 })).contests.map((r) => r.contest_id)).toEqual([fresh.contest_id]);
  });

  it('200: status and category filters, each paged with its own cursor', async () => {
    const voided = await newContest(env, { category: 'culture' });
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: voided.contest_id } }), { status: 200 });
    const sports = await allPages({ category: 'sports', limit: 4 });
    expect(sports.length).toBeGreaterThan(4);
    expect(sports.every((r) => r.category === 'sports')).toBe(true);
    const voidedRows = await allPages({ status: 'voided' });
    expect(voidedRows.map((r) => r.contest_id)).toContain(voided.contest_id);
    expect(voidedRows.every((r) => r.status === 'voided')).toBe(true);
    const openCulture = await allPages({ status: 'open', category: 'culture' });
    expect(openCulture.every((r) => r.status === 'open' && r.category === 'culture')).toBe(true);
    expect(openCulture.map((r) => r.contest_id)).not.toContain(voided.contest_id);
  });

  it('400 INVALID_CURSOR: a cursor not produced by the service, or replayed with other filters', async () => {
    const { checked } = await anon.run(listContests({ client: anon.client, query: { cursor: 'not.valid!' } }), {
      status: 400,
      code: 'INVALID_CURSOR',
    });
    expectErrorBody(checked.body);
    const forged = Buffer.from(JSON.stringify({ c: Date.now(), i: 'nope' })).toString('base64url');
    await anon.run(listContests({ client: anon.client, query: { cursor: forged } }), { status: 400, code: 'INVALID_CURSOR' });
    const page = await lobby({ category: 'sports', limit: 1 });
    await anon.run(listContests({ client: anon.client, query: { category: 'culture', limit: 1, cursor: page.next_cursor! } }), {
      status: 400,
      code: 'INVALID_CURSOR',
    });
    await anon.run(listContests({ client: anon.client, query: { limit: 1, cursor: page.next_cursor! } }), { status: 400, code: 'INVALID_CURSOR' });
    await env.svc.call('listContests', { query: { limit: '2.5' } }, { status: 400, code: 'VALIDATION_FAILED' });
  });

  it('caller: null without a token, {joined} with a user session; 401 INVALID_SESSION for an unknown token, 403 for the operator token', async () => {
    const [joiner, other] = await Promise.all([newUser(env, { fund: MICRO }), newUser(env)]);
    const c = await newContest(env);
    await enter(joiner, c, 'uu');
    const rowFor = (rows: ContestLobbyRow[]) => rows.find((r) => r.contest_id === c.contest_id)!;
    expect(rowFor((await lobby({ limit: 5 })).contests).caller).toBeNull();
    const mine = await lobby({ limit: 50 }, joiner.api);
    expect(rowFor(mine.contests).caller).toEqual({ joined: true });
    expect(mine.contests.filter((r) => r.contest_id !== c.contest_id).every((r) => r.caller?.joined === false)).toBe(true);
    expect(rowFor((await lobby({ limit: 5 }, other.api)).contests).caller).toEqual({ joined: false });
    expect(rowFor((await lobby({ limit: 5 })).contests)).toMatchObject({ entries_filled: 1, total_pot_micros: 11 * MICRO });

    const garbage = env.svc.client({ token: `garbage-${randomUUID()}` });
    const { checked } = await garbage.run(listContests({ client: garbage.client }), { status: 401, code: 'INVALID_SESSION' });
    expectErrorBody(checked.body);
    await env.operator.run(listContests({ client: env.operator.client }), { status: 403, code: 'FORBIDDEN' });
  });
});

describe('getContest', () => {
  it('200 for every game type, caller null without a token and {joined} with one; 404, 401, 403', async () => {
    const u = await newUser(env);
    const survivor = await newContest(env, { game_type: 'survivor' });
    const { data } = await anon.run(getContest({ client: anon.client, path: { id: survivor.contest_id } }), { status: 200 });
    expect(data).toEqual(survivor);
    expect((await u.api.run(getContest({ client: u.api.client, path: { id: survivor.contest_id } }), { status: 200 })).data).toEqual({
      ...survivor,
      caller: { joined: false },
    });
    const { checked } = await anon.run(getContest({ client: anon.client, path: { id: randomUUID() } }), { status: 404, code: 'CONTEST_NOT_FOUND' });
    expectErrorBody(checked.body);
    const garbage = env.svc.client({ token: `garbage-${randomUUID()}` });
    await garbage.run(getContest({ client: garbage.client, path: { id: survivor.contest_id } }), { status: 401, code: 'INVALID_SESSION' });
    await env.operator.run(getContest({ client: env.operator.client, path: { id: survivor.contest_id } }), { status: 403, code: 'FORBIDDEN' });
  });
});

describe('a lineups contest from entries to payouts', () => {
  // Pot 2 + 4 x 1 = 6 USDC, split 60/30/10. Markets resolve YES, YES, NO:
  //   a uuu: 2 wins, b uud: 3 wins, c udd: 2 wins, d ddd: 1 win -> ranks b 1, a 2, c 2, d 4;
  //   b gets 3.6, a and c share positions 2 and 3 (40%): 1.2 each, d 0.
  let a: User, b: User, c: User, d: User, outsider: User;
  let contest: ContestById;
  const board = async (query: { limit?: number } = {}, api: ContractClient = anon): Promise<Leaderboard> =>
    (await api.run(getContestLeaderboard({ client: api.client, path: { id: contest.contest_id }, query }), { status: 200 })).data!;
  const profile = async (handle: string) =>
    (await anon.run(getProfileContest({ client: anon.client, path: { handle, id: contest.contest_id } }), { status: 200 })).data!;
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
    expect((await profile(outsider.handle!)).profile_owner).toEqual({ joined: false, entry_visibility: 'hidden_while_betting_open', entries: [] });
  });

  it('getContestPopularEntry 200 before betting closes: hidden_while_betting_open, no counts', async () => {
    const { data } = await anon.run(getContestPopularEntry({ client: anon.client, path: { id: contest.contest_id } }), { status: 200 });
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
    const { data } = await anon.run(getContestPopularEntry({ client: anon.client, path: { id: contest.contest_id } }), { status: 200 });
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
    const resolvedRows = await allPages({ status: 'resolved' });
    expect(resolvedRows.find((r) => r.contest_id === contest.contest_id)).toMatchObject({ status: 'resolved', resolved_at_ms: done.resolved_at_ms });
  });

  it('getContestTopParticipants 200: payouts of the window for the same category and game type', async () => {
    const top = async (id: string, query: { window_ms?: number; limit?: number } = {}) =>
      (await anon.run(getContestTopParticipants({ client: anon.client, path: { id }, query }), { status: 200 })).data!;
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
    const before = (await anon.run(getProfileContest({ client: anon.client, path: { handle: z.handle!, id: c.contest_id } }), { status: 200 })).data!;
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
    const lb = (await anon.run(getContestLeaderboard({ client: anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
    // z: 1 point, rank 1, 70% of 4; x, y, w tied at rank 2 share positions 2-4 (30%): 400 000 each.
    expect(lb.entries.map((r) => [r.user_id, r.rank, r.resolved_win_count, r.payout_micros, r.net_payout_micros])).toEqual([
      [z.userId, 1, 2, 2_800_000, 1_800_000],
      [x.userId, 2, 1, 400_000, -600_000],
      [y.userId, 2, 1, 400_000, -600_000],
      [w.userId, 2, 0, 400_000, -600_000],
    ]);
    const pz = (await anon.run(getProfileContest({ client: anon.client, path: { handle: z.handle!, id: c.contest_id } }), { status: 200 })).data!;
    expect(pz.profile_owner.entries[0]!.picks.map((p) => p.outcome)).toEqual(['won', 'won']);
    const px = (await anon.run(getProfileContest({ client: anon.client, path: { handle: x.handle!, id: c.contest_id } }), { status: 200 })).data!;
    expect(px.profile_owner.entries[0]!.picks.map((p) => p.outcome)).toEqual(['lost', 'won']);
    // Top participants of outcast/mentions: z won (net > 0); the others were paid but lost money.
    const top = (await anon.run(getContestTopParticipants({ client: anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
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
    const lb = (await anon.run(getContestLeaderboard({ client: anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
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
    const live = (await anon.run(getContestLeaderboard({ client: anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
    expect(live.entries.map((r) => [r.user_id, r.rank, r.payout_micros])).toEqual([
      [x.userId, 1, null],
      [y.userId, 2, null],
    ]);
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), { status: 200 });
    const lb = (await anon.run(getContestLeaderboard({ client: anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
    expect(lb.entries.map((r) => [r.payout_micros, r.net_payout_micros])).toEqual([
      [null, null],
      [null, null],
    ]);
    const p = (await anon.run(getProfileContest({ client: anon.client, path: { handle: x.handle!, id: c.contest_id } }), { status: 200 })).data!;
    expect(p.status).toBe('voided');
    expect(p.profile_owner.entries).toEqual([expect.objectContaining({ rank: null, payout_micros: null, net_payout_micros: null })]);
    expect(await balances(x)).toEqual({ available: MICRO, reserved: 0 });
  });
});

describe('404s of the public contest routes', () => {
  it('an unknown contest is CONTEST_NOT_FOUND everywhere; survivor and streak contests on the lineups/outcast-only routes', async () => {
    const owner = await newUser(env, { handle: true });
    const unknown = randomUUID();
    const notFound = { status: 404, code: 'CONTEST_NOT_FOUND' };
    for (const { checked } of [
      await anon.run(getContestLeaderboard({ client: anon.client, path: { id: unknown } }), notFound),
      await anon.run(getContestTopParticipants({ client: anon.client, path: { id: unknown } }), notFound),
      await anon.run(getContestPopularEntry({ client: anon.client, path: { id: unknown } }), notFound),
      await anon.run(getProfileContest({ client: anon.client, path: { handle: owner.handle!, id: unknown } }), notFound),
    ]) {
      expectErrorBody(checked.body);
    }
    for (const game_type of ['survivor', 'streak'] as const) {
      const c = await newContest(env, { game_type });
      await anon.run(getContestTopParticipants({ client: anon.client, path: { id: c.contest_id } }), notFound);
      await anon.run(getContestPopularEntry({ client: anon.client, path: { id: c.contest_id } }), notFound);
      await anon.run(getProfileContest({ client: anon.client, path: { handle: owner.handle!, id: c.contest_id } }), notFound);
    }
  });

  it('getProfileContest 404 USER_NOT_FOUND for an unknown handle; popular entry of a contest without entries: hidden, or all zeros when visible', async () => {
    const c = await newContest(env);
    const { checked } = await anon.run(
      getProfileContest({ client: anon.client, path: { handle: `nobody_${randomBytes(4).toString('hex')}`, id: c.contest_id } }),
      {
        status: 404,
        code: 'USER_NOT_FOUND',
      },
    );
    expectErrorBody(checked.body);
    const { data } = await anon.run(getContestPopularEntry({ client: anon.client, path: { id: c.contest_id } }), { status: 200 });
    expect(data).toEqual({ total_entries: 0, entry_visibility: 'hidden_while_betting_open', markets: [] });
    const shown = await newContest(env, { entry_visibility: 'visible' });
    const visible = (await anon.run(getContestPopularEntry({ client: anon.client, path: { id: shown.contest_id } }), { status: 200 })).data;
    expect(visible).toEqual({
      total_entries: 0,
      entry_visibility: 'visible',
      markets: shown.markets.map((m) => ({ market_id: m.market_id, yes_count: 0, no_count: 0 })),
    });
    const lb = (await anon.run(getContestLeaderboard({ client: anon.client, path: { id: c.contest_id } }), { status: 200 })).data!;
    expect(lb).toEqual({ total_entries: 0, entries: [], caller: null });
  });

  it('getContestLeaderboard 401 INVALID_SESSION for an unknown token, 403 FORBIDDEN for the operator token', async () => {
    const c = await newContest(env);
    const garbage = env.svc.client({ token: `garbage-${randomUUID()}` });
    await garbage.run(getContestLeaderboard({ client: garbage.client, path: { id: c.contest_id } }), { status: 401, code: 'INVALID_SESSION' });
    await env.operator.run(getContestLeaderboard({ client: env.operator.client, path: { id: c.contest_id } }), { status: 403, code: 'FORBIDDEN' });
  });
});
