// Contests end to end through the real service (src/testing/contest-service.ts): a lineups contest from
// creation to payout (enter, hide, reveal, resolve, pay; leaderboard, top participants, popular entry) and
// the lobby's paging. Outcast scoring and voids: contests-outcomes.int.test.ts; bad input and races:
// contests-entries.int.test.ts. The ledger check runs after every scenario.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveContest } from '../domain/contests/resolution.js';
import {
  api,
  balances,
  createContest,
  enter,
  fundedUser,
  op,
  payoutTransactions,
  sleep,
  useContestService,
  waitForStatus,
} from '../testing/contest-service.js';

const s = useContestService('contests');

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
    const popular = await api(`GET /v1/contests/${c.contest_id}/popular-entry`);
    expect(popular.body).toEqual({ total_entries: 3, entry_visibility: 'hidden_while_betting_open', markets: [] });
    expect(third.body).toMatchObject({
      contest_id: c.contest_id,
      entry_index: 0,
      picks: [
        { market_id: m1, direction: 'down' },
        { market_id: m2, direction: 'down' },
      ],
    });
    expect(await balances(a)).toEqual({ available: 900_000, reserved: 100_000 });

    // Lobby: pot and count follow the entries; caller.joined only with a token.
    const anon = await api('GET /v1/contests?status=open&category=mentions&limit=50');
    const row = anon.body.contests.find((x: { contest_id: string }) => x.contest_id === c.contest_id);
    expect(row).toMatchObject({ entries_filled: 3, total_pot_micros: 1_300_000, caller: null });
    const mine = await api('GET /v1/contests?limit=50', { token: a.token });
    expect(mine.body.contests.find((x: { contest_id: string }) => x.contest_id === c.contest_id).caller).toEqual({ joined: true });
    const outsider = await fundedUser(0);
    const theirs = await api('GET /v1/contests?limit=50', { token: outsider.token });
    expect(theirs.body.contests.find((x: { contest_id: string }) => x.contest_id === c.contest_id).caller).toEqual({ joined: false });

    // Hidden while betting is open: joined, but no entries; handle matched case-insensitively.
    const hidden = await api(`GET /v1/u/${a.handle.toUpperCase()}/contests/${c.contest_id}`);
    expect(hidden.status).toBe(200);
    expect(hidden.body.profile_owner).toEqual({ joined: true, entry_visibility: 'hidden_while_betting_open', entries: [] });
    const notJoined = await api(`GET /v1/u/${outsider.handle}/contests/${c.contest_id}`);
    expect(notJoined.body.profile_owner).toEqual({ joined: false, entry_visibility: 'hidden_while_betting_open', entries: [] });

    // Betting closes: entries refused, the owner's picks become visible.
    await sleep(Math.max(0, closesAt - Date.now()) + 50);
    expect(
      (
        await enter(outsider, c.contest_id, [
          [m1, 'up'],
          [m2, 'up'],
        ])
      ).body.code,
    ).toBe('BETTING_CLOSED');
    const shown = await api(`GET /v1/u/${a.handle}/contests/${c.contest_id}`);
    expect(shown.body.profile_owner).toMatchObject({ joined: true, entry_visibility: 'visible' });
    expect((await api(`GET /v1/contests/${c.contest_id}/popular-entry`)).body).toEqual({
      total_entries: 3,
      entry_visibility: 'visible',
      markets: [
        { market_id: m1, yes_count: 2, no_count: 1 },
        { market_id: m2, yes_count: 1, no_count: 2 },
      ],
    });
    expect(shown.body.profile_owner.entries).toEqual([
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
    expect((await op(`POST /v1/admin/markets/${m1}/resolve`, { outcome: 'YES' })).body).toMatchObject({
      market_id: m1,
      status: 'RESOLVED',
      outcome: 'YES',
    });
    const midway = await api(`GET /v1/contests/${c.contest_id}/leaderboard`);
    expect(midway.body.entries.map((r: { user_id: string; rank: number; open_leg_count: number }) => [r.user_id, r.rank, r.open_leg_count])).toEqual([
      [a.userId, 1, 1],
      [b.userId, 1, 1],
      [cc.userId, 3, 1],
    ]);
    expect((await op(`POST /v1/admin/markets/${m2}/resolve`, { outcome: 'YES' })).status).toBe(200);
    const resolved = await waitForStatus(c.contest_id, 'resolved');
    expect(resolved.resolved_at_ms).toBeGreaterThan(closesAt);

    // Pot 1,300,000: 60% / 30% / 10%.
    expect(await balances(a)).toEqual({ available: 900_000 + 780_000, reserved: 0 });
    expect(await balances(b)).toEqual({ available: 900_000 + 390_000, reserved: 0 });
    expect(await balances(cc)).toEqual({ available: 900_000 + 130_000, reserved: 0 });
    expect(await payoutTransactions(c.contest_id)).toBe(1);

    const board = await api(`GET /v1/contests/${c.contest_id}/leaderboard?limit=1`, { token: cc.token });
    expect(board.body.total_entries).toBe(3);
    expect(board.body.entries).toEqual([
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
    expect(board.body.caller.rows).toEqual([
      expect.objectContaining({ rank: 3, user_id: cc.userId, entry_index: 0, payout_micros: 130_000, net_payout_micros: 30_000 }),
    ]);
    const inTop = await api(`GET /v1/contests/${c.contest_id}/leaderboard`, { token: a.token });
    expect(inTop.body.caller).toEqual({ rows: [] });
    expect((await api(`GET /v1/contests/${c.contest_id}/leaderboard`)).body.caller).toBeNull();

    const profile = await api(`GET /v1/u/${b.handle}/contests/${c.contest_id}`);
    expect(profile.body.status).toBe('resolved');
    expect(profile.body.profile_owner.entries[0]).toMatchObject({
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

    const top = await api(`GET /v1/contests/${c.contest_id}/top-participants`);
    expect(top.body.window_ms).toBe(604_800_000);
    expect(
      top.body.participants.map((p: { user_id: string; won_count: number; total_winnings_micros: number }) => [
        p.user_id,
        p.won_count,
        p.total_winnings_micros,
      ]),
    ).toEqual([
      [a.userId, 1, 780_000],
      [b.userId, 1, 390_000],
      [cc.userId, 1, 130_000],
    ]);
    const narrow = await api(`GET /v1/contests/${c.contest_id}/top-participants?window_ms=1&limit=1`);
    expect(narrow.body).toEqual({ window_ms: 1, participants: [] });

    // Running the resolution again (a retried or duplicated job) pays nothing twice.
    expect(await resolveContest(s.orm.em.fork(), c.contest_id)).toBe('already_settled');
    expect(await payoutTransactions(c.contest_id)).toBe(1);
    expect((await op(`POST /v1/admin/markets/${m2}/resolve`, { outcome: 'NO' })).body.code).toBe('MARKET_ALREADY_RESOLVED');
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
      const q: string = `GET /v1/contests?category=${cat}&status=open&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await api(q);
      expect(page.status).toBe(200);
      expect(page.body.contests.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.contests.map((x: { contest_id: string }) => x.contest_id));
      cursor = page.body.next_cursor;
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

    const first = await api(`GET /v1/contests?category=${cat}&limit=2`);
    expect((await api(`GET /v1/contests?category=sports&limit=2&cursor=${first.body.next_cursor}`)).body.code).toBe('INVALID_CURSOR');
    const forged = Buffer.from(JSON.stringify({ c: Date.now(), i: randomUUID(), s: null, g: null })).toString('base64url');
    const [, tag] = (first.body.next_cursor as string).split('.');
    for (const garbage of [
      'abc',
      'eyJ4IjoxfQ',
      '!!!',
      forged,
      `${forged}.${tag}`,
      Buffer.from('{"c":1,"i":"x","s":null,"g":null}').toString('base64url'),
    ]) {
      const r = await api(`GET /v1/contests?cursor=${encodeURIComponent(garbage)}`);
      expect([r.status, r.body.code]).toEqual([400, 'INVALID_CURSOR']);
    }
    expect((await api('GET /v1/contests?limit=0')).body.contests).toHaveLength(1);
    expect((await api('GET /v1/contests?limit=1000')).body.contests.length).toBeLessThanOrEqual(50);
    expect((await api('GET /v1/contests?limit=abc')).status).toBe(400);
  });
});
