// Contests end to end through the real service (src/testing/contest-service.ts): a lineups contest from
// creation to payout (enter, hide, reveal, resolve, pay; leaderboard, top participants, popular entry) and
// the lobby's paging. Outcast scoring and voids: contests-outcomes.int.test.ts; bad input and races:
// contests-entries.int.test.ts. The ledger check runs after every scenario.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveContest } from '../domain/contests/resolution.js';
import {
  getContestLeaderboard,
  getContestPopularEntry,
  getContestTopParticipants,
  getProfileContest,
  listContests,
  resolveMarket,
} from '../../generated/openapi/sdk.gen.js';
import type { ListContestsData } from '../../generated/openapi/types.gen.js';
import { send } from '../testing/sdk-client.js';
import {
  balances,
  client,
  createContest,
  enter,
  fundedUser,
  payoutTransactions,
  sleep,
  useContestService,
  waitForStatus,
} from '../testing/contest-service.js';

const s = useContestService('contests');
const resolve = (marketId: number, outcome: 'YES' | 'NO') =>
  send(resolveMarket({ client: client(s.operator), path: { market_id: marketId }, body: { outcome } }));
const lobby = (query: ListContestsData['query'], token?: string) => send(listContests({ client: client(token), query }));
const popularEntry = (id: string) => send(getContestPopularEntry({ client: client(), path: { id } }));
const profile = (handle: string, id: string) => send(getProfileContest({ client: client(), path: { handle, id } }));
const leaderboard = (id: string, token?: string, limit?: number) =>
  send(getContestLeaderboard({ client: client(token), path: { id }, query: limit === undefined ? {} : { limit } }));

describe('a lineups contest from creation to payout', () => {
  it('create, enter, hide, reveal, resolve, pay; leaderboard, top participants and popular entry agree', async () => {
    const closesAt = Date.now() + 8_000; // room for the set-up below on a busy machine (it took just over 4 s on a shared 2-core box)
    const c = await createContest({ protocol_prize_pool_micros: 1_000_000, betting_closes_ms: closesAt, description: 'Two words.' });
    expect(c).toMatchObject({
      status: 'open',
      entries_filled: 0,
      total_pot_micros: 1_000_000,
      caller: null,
      image_url: '/v1/pool-images/default-mentions/raw',
    });
    const [m1, m2] = c.markets.map((m) => m.market_id) as [number, number];
    expect(m2).toBeGreaterThan(m1);

    const [a, b, cc] = await Promise.all([fundedUser(1_000_000), fundedUser(1_000_000), fundedUser(1_000_000)]);
    expect(
      (
        await enter(a, c.contest_id, [
          [m1, 'up'],
          [m2, 'up'],
        ])
      ).status,
    ).toBe(201);
    expect(
      (
        await enter(b, c.contest_id, [
          [m1, 'up'],
          [m2, 'down'],
        ])
      ).status,
    ).toBe(201);
    const third = await enter(cc, c.contest_id, [
      [m1, 'down'],
      [m2, 'down'],
    ]);
    expect(third.status).toBe(201);
    // Popular entry hides the counts too while betting is open (they would be the entrants' picks).
    const popular = await popularEntry(c.contest_id);
    expect(popular.data).toEqual({ total_entries: 3, entry_visibility: 'hidden_while_betting_open', markets: [] });
    expect(third.data).toMatchObject({
      contest_id: c.contest_id,
      entry_index: 0,
      picks: [
        { market_id: m1, direction: 'down' },
        { market_id: m2, direction: 'down' },
      ],
    });
    expect(await balances(a)).toEqual({ available: 900_000, reserved: 100_000 });

    // Lobby: pot and count follow the entries; caller.joined only with a token.
    const anon = await lobby({ status: 'open', category: 'mentions', limit: 50 });
    const row = anon.data?.contests.find((x) => x.contest_id === c.contest_id);
    expect(row).toMatchObject({ entries_filled: 3, total_pot_micros: 1_300_000, caller: null });
    const mine = await lobby({ limit: 50 }, a.token);
    expect(mine.data?.contests.find((x) => x.contest_id === c.contest_id)?.caller).toEqual({ joined: true });
    const outsider = await fundedUser(0);
    const theirs = await lobby({ limit: 50 }, outsider.token);
    expect(theirs.data?.contests.find((x) => x.contest_id === c.contest_id)?.caller).toEqual({ joined: false });

    // Hidden while betting is open: joined, but no entries; handle matched case-insensitively.
    const hidden = await profile(a.handle.toUpperCase(), c.contest_id);
    expect(hidden.status).toBe(200);
    expect(hidden.data?.profile_owner).toEqual({ joined: true, entry_visibility: 'hidden_while_betting_open', entries: [] });
    const notJoined = await profile(outsider.handle, c.contest_id);
    expect(notJoined.data?.profile_owner).toEqual({ joined: false, entry_visibility: 'hidden_while_betting_open', entries: [] });

    // Betting closes: entries refused, the owner's picks become visible.
    await sleep(Math.max(0, closesAt - Date.now()) + 50);
    expect(
      (
        await enter(outsider, c.contest_id, [
          [m1, 'up'],
          [m2, 'up'],
        ])
      ).error?.code,
    ).toBe('BETTING_CLOSED');
    const shown = await profile(a.handle, c.contest_id);
    expect(shown.data?.profile_owner).toMatchObject({ joined: true, entry_visibility: 'visible' });
    expect((await popularEntry(c.contest_id)).data).toEqual({
      total_entries: 3,
      entry_visibility: 'visible',
      markets: [
        { market_id: m1, yes_count: 2, no_count: 1 },
        { market_id: m2, yes_count: 1, no_count: 2 },
      ],
    });
    expect(shown.data?.profile_owner.entries).toEqual([
      {
        entry_index: 0,
        created_at_ms: expect.any(Number),
        picks: [
          { market_id: m1, direction: 'up', outcome: 'pending' },
          { market_id: m2, direction: 'up', outcome: 'pending' },
        ],
        open_leg_count: 2,
        resolved_win_count: 0,
        payout_micros: null,
        net_payout_micros: null,
        rank: 1,
      },
    ]);

    // Resolve: YES, YES -> a 2 wins, b 1, c 0.
    expect((await resolve(m1, 'YES')).data).toMatchObject({
      market_id: m1,
      status: 'RESOLVED',
      outcome: 'YES',
    });
    const midway = await leaderboard(c.contest_id);
    expect(midway.data?.entries.map((r) => [r.user_id, r.rank, r.open_leg_count])).toEqual([
      [a.userId, 1, 1],
      [b.userId, 1, 1],
      [cc.userId, 3, 1],
    ]);
    expect((await resolve(m2, 'YES')).status).toBe(200);
    const resolved = await waitForStatus(c.contest_id, 'resolved');
    expect(resolved.resolved_at_ms).toBeGreaterThan(closesAt);

    // Pot 1,300,000: 60% / 30% / 10%.
    expect(await balances(a)).toEqual({ available: 900_000 + 780_000, reserved: 0 });
    expect(await balances(b)).toEqual({ available: 900_000 + 390_000, reserved: 0 });
    expect(await balances(cc)).toEqual({ available: 900_000 + 130_000, reserved: 0 });
    expect(await payoutTransactions(c.contest_id)).toBe(1);

    const board = await leaderboard(c.contest_id, cc.token, 1);
    expect(board.data?.total_entries).toBe(3);
    expect(board.data?.entries).toEqual([
      expect.objectContaining({
        rank: 1,
        user_id: a.userId,
        handle: a.handle,
        resolved_win_count: 2,
        open_leg_count: 0,
        payout_micros: 780_000,
        net_payout_micros: 680_000,
      }),
    ]);
    expect(board.data?.caller?.rows).toEqual([
      expect.objectContaining({ rank: 3, user_id: cc.userId, entry_index: 0, payout_micros: 130_000, net_payout_micros: 30_000 }),
    ]);
    const inTop = await leaderboard(c.contest_id, a.token);
    expect(inTop.data?.caller).toEqual({ rows: [] });
    expect((await leaderboard(c.contest_id)).data?.caller).toBeNull();

    const bProfile = await profile(b.handle, c.contest_id);
    expect(bProfile.data?.status).toBe('resolved');
    expect(bProfile.data?.profile_owner.entries[0]).toMatchObject({
      picks: [
        { market_id: m1, direction: 'up', outcome: 'won' },
        { market_id: m2, direction: 'down', outcome: 'lost' },
      ],
      open_leg_count: 0,
      resolved_win_count: 1,
      payout_micros: 390_000,
      net_payout_micros: 290_000,
      rank: 2,
    });

    const top = await send(getContestTopParticipants({ client: client(), path: { id: c.contest_id } }));
    expect(top.data?.window_ms).toBe(604_800_000);
    expect(top.data?.participants.map((p) => [p.user_id, p.won_count, p.total_winnings_micros])).toEqual([
      [a.userId, 1, 780_000],
      [b.userId, 1, 390_000],
      [cc.userId, 1, 130_000],
    ]);
    const narrow = await send(
      getContestTopParticipants({ client: client(), path: { id: c.contest_id }, query: { window_ms: 1, limit: 1 } }),
    );
    expect(narrow.data).toEqual({ window_ms: 1, participants: [] });

    // Running the resolution again (a retried or duplicated job) pays nothing twice.
    expect(await resolveContest(s.orm.em.fork(), c.contest_id)).toBe('already_settled');
    expect(await payoutTransactions(c.contest_id)).toBe(1);
    expect((await resolve(m2, 'NO')).error?.code).toBe('MARKET_ALREADY_RESOLVED');
  });
});

describe('lobby', () => {
  it('pages newest first with a stable cursor while contests are added; garbage cursors are 400', async () => {
    const cat = 'culture';
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await createContest({ category: cat, title: `lobby ${i}` })).contest_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await lobby({ category: cat, status: 'open', limit: 3, ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      expect(page.data!.contests.length).toBeLessThanOrEqual(3);
      seen.push(...page.data!.contests.map((x) => x.contest_id));
      cursor = page.data!.next_cursor ?? null;
      if (pages++ === 0) await createContest({ category: cat, title: 'inserted while paging' }); // lands before page 1: never seen, never shifts the pages
    } while (cursor);
    const expected = (
      await s.sql.query(
        `select id::text as id from contests where category = $1 and status = 'open' and title <> 'inserted while paging' order by created_at_ms desc, id desc`,
        [cat],
      )
    ).rows.map((r) => r.id);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of made) expect(seen).toContain(id);

    const first = await lobby({ category: cat, limit: 2 });
    const firstCursor = first.data!.next_cursor!;
    expect((await lobby({ category: 'sports', limit: 2, cursor: firstCursor })).error?.code).toBe('INVALID_CURSOR');
    const forged = Buffer.from(JSON.stringify({ c: Date.now(), i: randomUUID(), s: null, g: null })).toString('base64url');
    const [, tag] = firstCursor.split('.');
    for (const garbage of [
      'abc',
      'eyJ4IjoxfQ',
      '!!!',
      forged,
      `${forged}.${tag}`,
      Buffer.from('{"c":1,"i":"x","s":null,"g":null}').toString('base64url'),
    ]) {
      const r = await lobby({ cursor: garbage });
      expect([r.status, r.error?.code]).toEqual([400, 'INVALID_CURSOR']);
    }
    expect((await lobby({ limit: 0 })).data?.contests).toHaveLength(1);
    expect((await lobby({ limit: 1000 })).data?.contests.length).toBeLessThanOrEqual(50);
    // Raw: a non-numeric limit is what the SDK's typed query cannot send.
    expect((await fetch(`${s.svc.baseUrl}/v1/contests?limit=abc`)).status).toBe(400);
  });
});
