// Contests end to end through the real service (PostgreSQL + Redis, API and workers in one process):
// create, enter, hide, reveal, resolve, pay, leaderboard, top participants, popular entry; outcast scoring;
// voiding; bad input; the cap under 20 concurrent entries. The ledger check runs after every scenario.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../db/orm.js';
import { resolveContest } from '../domain/contests/resolution.js';
import type { ServiceProcess } from '../testing/service-process.js';
import { call, type TestPrivy } from '../testing/identity.js';
import { ledgerProblems, newUserSession } from '../testing/money.js';
import { startTestService, type TestService } from '../testing/test-service.js';

let t: TestService;
let OPERATOR: string;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;
let orm: Orm;

beforeAll(async () => {
  t = await startTestService('contests');
  ({ svc, privy, sql, operatorToken: OPERATOR } = t);
  orm = await createOrm({ databaseUrl: t.db.url });
});

afterEach(async () => {
  expect(await ledgerProblems(sql)).toEqual([]);
});

afterAll(async () => {
  await orm?.close(true);
  await t?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (route: string, opts: { body?: unknown; token?: string } = {}) => call(svc.baseUrl, route, opts);
const op = (route: string, body?: unknown) => api(route, { token: OPERATOR, body });
// A contest market takes a YES or NO only once its betting has closed (409 BETTING_OPEN before).
const untilClosed = (c: Record<string, unknown>) => sleep(Math.max(0, Number(c.betting_closes_ms) - Date.now()) + 50);

interface User {
  token: string;
  userId: string;
  handle: string;
}

async function fundedUser(amount: number, handle = `u_${randomUUID().slice(0, 8)}`): Promise<User> {
  const u = await newUserSession(svc.baseUrl, privy);
  if (amount > 0) {
    const d = await api('POST /v1/users/deposit', { token: u.token, body: { amount_micros: amount, idempotency_key: randomUUID() } });
    expect(d.status).toBe(200);
  }
  const h = await api('PATCH /v1/user/preferences', { token: u.token, body: { handle } });
  expect(h.status).toBe(200);
  return { ...u, handle };
}

async function balances(u: User) {
  const [a, r] = await Promise.all([
    api('GET /v1/user/available_balance', { token: u.token }),
    api('GET /v1/user/reserved_balance', { token: u.token }),
  ]);
  return { available: Number(a.body.available_micros), reserved: Number(r.body.reserved_micros) };
}

function contestBody(over: Record<string, unknown> = {}) {
  return {
    title: 'Test contest',
    category: 'mentions',
    game_type: 'lineups',
    bet_amount_micros: 100_000,
    protocol_prize_pool_micros: 0,
    entry_cap: 100,
    betting_closes_ms: Date.now() + 60_000,
    bet_type: { kind: 'num_bets', value: 2 },
    winning_split_bps: [6000, 3000, 1000],
    markets: [
      { category: 'words', name: 'Says "inflation"' },
      { category: 'words', name: 'Says "recession"' },
    ],
    ...over,
  };
}

async function createContest(over: Record<string, unknown> = {}) {
  const res = await op('POST /v1/admin/contests', contestBody(over));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { contest_id: string; markets: Array<{ market_id: number; category: string }> } & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const enter = (u: User, contestId: string, picks: Array<[number, 'up' | 'down']>, key: string = randomUUID()) =>
  api(`POST /v1/contests/${contestId}/entries`, {
    token: u.token,
    body: { picks: picks.map(([market_id, direction]) => ({ market_id, direction })), idempotency_key: key },
  });

async function waitForStatus(contestId: string, status: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`GET /v1/contests/${contestId}`);
    if (res.body.status === status) return res.body;
    if (Date.now() > until) throw new Error(`contest ${contestId} still ${res.body.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

const payoutTransactions = async (contestId: string) =>
  Number(
    (
      await sql.query(`select count(*)::int as n from ledger_transactions where reference = $1 and kind in ('contest_payout', 'contest_refund')`, [
        contestId,
      ])
    ).rows[0].n,
  );

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
    expect(await resolveContest(orm.em.fork(), c.contest_id)).toBe('already_settled');
    expect(await payoutTransactions(c.contest_id)).toBe(1);
    expect((await op(`POST /v1/admin/markets/${m2}/resolve`, { outcome: 'NO' })).body.code).toBe('MARKET_ALREADY_RESOLVED');
  });
});

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
    expect((await op(`POST /v1/admin/markets/${m1}/resolve`, { outcome: 'NO' })).status).toBe(200);
    expect((await op(`POST /v1/admin/markets/${m2}/resolve`, { outcome: 'YES' })).status).toBe(200);
    await waitForStatus(c.contest_id, 'resolved');
    const board = await api(`GET /v1/contests/${c.contest_id}/leaderboard`);
    const rows = board.body.entries.map((r: { user_id: string; rank: number; resolved_win_count: number; payout_micros: number }) => [
      r.user_id,
      r.rank,
      r.resolved_win_count,
      r.payout_micros,
    ]);
    // Pot 300,000: c 70%; a and b tied at rank 2 share positions 2 and 3 (20% + 10%) equally.
    expect(rows).toEqual([
      [cc.userId, 1, 2, 210_000],
      [a.userId, 2, 0, 45_000],
      [b.userId, 2, 1, 45_000],
    ]);
    await sleep(Math.max(0, c.betting_closes_ms - Date.now()) + 20);
    const profile = await api(`GET /v1/u/${b.handle}/contests/${c.contest_id}`);
    expect(profile.body.profile_owner.entries[0].picks.map((p: { outcome: string }) => p.outcome)).toEqual(['lost', 'won']);
    expect(await balances(cc)).toEqual({ available: 400_000 + 210_000, reserved: 0 });
  });

  it('every market voided: the contest is voided and every bet refunded', async () => {
    const c = await createContest({ bet_type: { kind: 'num_bets', value: 1 } });
    const [m1, m2] = c.markets.map((m) => m.market_id) as [number, number];
    const [a, b] = await Promise.all([fundedUser(300_000), fundedUser(300_000)]);
    await enter(a, c.contest_id, [[m1, 'up']]);
    await enter(b, c.contest_id, [[m2, 'down']]);
    expect(await balances(a)).toEqual({ available: 200_000, reserved: 100_000 });
    expect((await op(`POST /v1/admin/markets/${m1}/resolve`, { outcome: 'VOID' })).body).toMatchObject({ status: 'VOIDED', outcome: null });
    await op(`POST /v1/admin/markets/${m2}/resolve`, { outcome: 'VOID' });
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
    const v = await op(`POST /v1/admin/contests/${c.contest_id}/void`);
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ status: 'voided', entries_filled: 2 });
    expect(await balances(a)).toEqual({ available: 500_000, reserved: 0 });
    expect((await op(`POST /v1/admin/contests/${c.contest_id}/void`)).body.code).toBe('CONTEST_ALREADY_SETTLED');
    expect((await op(`POST /v1/admin/markets/${m1}/resolve`, { outcome: 'YES' })).body.code).toBe('CONTEST_ALREADY_SETTLED');
    expect(
      (
        await enter(a, c.contest_id, [
          [m1, 'up'],
          [m2, 'up'],
        ])
      ).body.code,
    ).toBe('ENTRY_NOT_OPEN');
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
      op(`POST /v1/admin/markets/${m}/resolve`, { outcome: 'YES' }),
      ...Array.from({ length: 4 }, async () => {
        await sleep(5);
        return resolveContest(orm.em.fork(), c.contest_id);
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

describe('entries: bad input and races', () => {
  it('20 concurrent entries for the last 3 places: exactly 3 win, the rest are CONTEST_FULL and keep their money', async () => {
    const c = await createContest({ entry_cap: 5, bet_type: { kind: 'num_bets', value: 1 }, entry_visibility: 'visible' });
    const m = c.markets[0]!.market_id;
    const early = await Promise.all([fundedUser(100_000), fundedUser(100_000)]);
    for (const u of early) expect((await enter(u, c.contest_id, [[m, 'up']])).status).toBe(201);
    const racers = await Promise.all(Array.from({ length: 20 }, () => fundedUser(100_000)));
    const results = await Promise.all(racers.map((u) => enter(u, c.contest_id, [[m, 'down']])));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const losers = results.filter((r) => r.status !== 201);
    expect(losers.map((r) => r.body.code)).toEqual(Array(17).fill('CONTEST_FULL'));
    const after = await api(`GET /v1/contests/${c.contest_id}`);
    expect(after.body).toMatchObject({ entries_filled: 5, total_pot_micros: 500_000 });
    const reserved = await Promise.all(racers.map(async (u) => (await balances(u)).reserved));
    expect(reserved.filter((r) => r === 100_000)).toHaveLength(3);
    expect(reserved.filter((r) => r === 0)).toHaveLength(17);
    const popular = await api(`GET /v1/contests/${c.contest_id}/popular-entry`);
    expect(popular.body.markets[0]).toEqual({ market_id: m, yes_count: 2, no_count: 3 });
  });

  it("popular entry at each state of the visibility rule: one entrant's picks never show while betting is open", async () => {
    const closesAt = Date.now() + 6_000; // room for the set-up on a busy machine
    const hidden = await createContest({ betting_closes_ms: closesAt, bet_type: { kind: 'num_bets', value: 1 } });
    const visible = await createContest({ betting_closes_ms: closesAt, bet_type: { kind: 'num_bets', value: 1 }, entry_visibility: 'visible' });
    const popular = async (id: string) => (await api(`GET /v1/contests/${id}/popular-entry`)).body;
    const [h1, h2] = hidden.markets.map((m) => m.market_id) as [number, number];
    const [v1, v2] = visible.markets.map((m) => m.market_id) as [number, number];
    expect(await popular(hidden.contest_id)).toEqual({ total_entries: 0, entry_visibility: 'hidden_while_betting_open', markets: [] });
    const [u, w] = await Promise.all([fundedUser(1_000_000), fundedUser(1_000_000)]);
    for (const [c, m] of [
      [hidden, h1],
      [visible, v1],
    ] as const)
      expect((await enter(u, c.contest_id, [[m, 'down']])).status).toBe(201);
    // hidden_while_betting_open, betting open: one entrant, and still nothing of its picks
    expect(await popular(hidden.contest_id)).toEqual({ total_entries: 1, entry_visibility: 'hidden_while_betting_open', markets: [] });
    expect((await enter(w, hidden.contest_id, [[h2, 'up']])).status).toBe(201);
    expect(await popular(hidden.contest_id)).toEqual({ total_entries: 2, entry_visibility: 'hidden_while_betting_open', markets: [] });
    // visible: the counts at all times
    expect(await popular(visible.contest_id)).toEqual({
      total_entries: 1,
      entry_visibility: 'visible',
      markets: [
        { market_id: v1, yes_count: 0, no_count: 1 },
        { market_id: v2, yes_count: 0, no_count: 0 },
      ],
    });
    // betting closed: the hidden contest's counts appear
    await sleep(Math.max(0, closesAt - Date.now()) + 50);
    expect(await popular(hidden.contest_id)).toEqual({
      total_entries: 2,
      entry_visibility: 'visible',
      markets: [
        { market_id: h1, yes_count: 0, no_count: 1 },
        { market_id: h2, yes_count: 1, no_count: 0 },
      ],
    });
    expect((await popular(visible.contest_id)).entry_visibility).toBe('visible');
  });

  it('a double submit with one key reserves once; the same key elsewhere is a reuse', async () => {
    const c = await createContest({ max_entries_per_user: 3, bet_type: { kind: 'num_bets', value: 1 } });
    const other = await createContest({ bet_type: { kind: 'num_bets', value: 1 } });
    const m = c.markets[0]!.market_id;
    const u = await fundedUser(1_000_000);
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 10 }, () => enter(u, c.contest_id, [[m, 'up']], key)));
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
    expect(new Set(created.map((r) => JSON.stringify(r.body))).size).toBe(1);
    const replay = await enter(u, c.contest_id, [[m, 'up']], key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(created[0]!.body);
    expect(await balances(u)).toEqual({ available: 900_000, reserved: 100_000 });
    expect((await enter(u, c.contest_id, [[m, 'down']], key)).body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await enter(u, other.contest_id, [[m, 'up']], key)).body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('every rule answers its own error and moves no money', async () => {
    const c = await createContest({ max_entries_per_user: 1 });
    const other = await createContest();
    const perCat = await createContest({
      bet_type: { kind: 'bets_per_category', value: 1 },
      markets: [
        { category: 'words', name: 'w1' },
        { category: 'words', name: 'w2' },
        { category: 'people', name: 'p1' },
      ],
    });
    const [m1, m2] = c.markets.map((m) => m.market_id) as [number, number];
    const u = await fundedUser(300_000);
    const poor = await fundedUser(50_000);
    const expectCode = async (p: Promise<{ status: number; body: { code: string; details: unknown } }>, status: number, code: string) => {
      const r = await p;
      expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([status, code]);
      return r;
    };
    await expectCode(
      enter(u, randomUUID(), [
        [m1, 'up'],
        [m2, 'up'],
      ]),
      404,
      'CONTEST_NOT_FOUND',
    );
    await expectCode(
      api('POST /v1/contests/not-a-uuid/entries', {
        token: u.token,
        body: { picks: [{ market_id: m1, direction: 'up' }], idempotency_key: randomUUID() },
      }),
      400,
      'VALIDATION_FAILED',
    );
    const foreign = await expectCode(
      enter(u, c.contest_id, [
        [m1, 'up'],
        [other.markets[0]!.market_id, 'up'],
      ]),
      422,
      'INVALID_PICKS',
    );
    expect(JSON.stringify(foreign.body.details)).toContain('not a market of this contest');
    await expectCode(
      enter(u, c.contest_id, [
        [m1, 'up'],
        [m1, 'down'],
      ]),
      422,
      'INVALID_PICKS',
    );
    await expectCode(enter(u, c.contest_id, [[m1, 'up']]), 422, 'INVALID_PICKS');
    const [w1, w2, p1] = perCat.markets.map((m) => m.market_id) as [number, number, number];
    await expectCode(
      enter(u, perCat.contest_id, [
        [w1, 'up'],
        [w2, 'up'],
      ]),
      422,
      'INVALID_PICKS',
    );
    expect(
      (
        await enter(u, perCat.contest_id, [
          [w2, 'up'],
          [p1, 'down'],
        ])
      ).status,
    ).toBe(201);
    await expectCode(
      enter(poor, c.contest_id, [
        [m1, 'up'],
        [m2, 'up'],
      ]),
      422,
      'INSUFFICIENT_BALANCE',
    );
    expect(await balances(poor)).toEqual({ available: 50_000, reserved: 0 });
    expect(
      (
        await enter(u, c.contest_id, [
          [m1, 'up'],
          [m2, 'down'],
        ])
      ).status,
    ).toBe(201);
    await expectCode(
      enter(u, c.contest_id, [
        [m1, 'up'],
        [m2, 'down'],
      ]),
      409,
      'ENTRY_LIMIT_REACHED',
    );
    expect(await balances(u)).toEqual({ available: 100_000, reserved: 200_000 });

    const later = await createContest({ entry_opens_at_ms: Date.now() + 60_000, betting_closes_ms: Date.now() + 120_000 });
    await expectCode(
      enter(
        poor,
        later.contest_id,
        later.markets.map((m) => [m.market_id, 'up'] as [number, 'up']),
      ),
      409,
      'ENTRY_NOT_OPEN',
    );
    const survivor = await createContest({ game_type: 'survivor' });
    await expectCode(
      enter(
        poor,
        survivor.contest_id,
        survivor.markets.map((m) => [m.market_id, 'up'] as [number, 'up']),
      ),
      422,
      'INVALID_PICKS',
    );
    await expectCode(api(`GET /v1/contests/${survivor.contest_id}/popular-entry`), 404, 'CONTEST_NOT_FOUND');
    await expectCode(api(`GET /v1/u/${u.handle}/contests/${survivor.contest_id}`), 404, 'CONTEST_NOT_FOUND');
    await expectCode(api(`GET /v1/u/nobody_${randomUUID().slice(0, 6)}/contests/${c.contest_id}`), 404, 'USER_NOT_FOUND');
    expect((await api(`GET /v1/contests/${survivor.contest_id}`)).body.game_type).toBe('survivor');
    // While betting is open a market can only be voided: a pick on it is refused.
    await op(`POST /v1/admin/markets/${m1}/resolve`, { outcome: 'VOID' });
    const c2 = await createContest({ max_entries_per_user: 1, bet_type: { kind: 'num_bets', value: 1 } });
    expect((await op(`POST /v1/admin/markets/${c2.markets[0]!.market_id}/resolve`, { outcome: 'VOID' })).status).toBe(200);
    await expectCode(enter(poor, c2.contest_id, [[c2.markets[0]!.market_id, 'up']]), 422, 'INVALID_PICKS');
  });

  it('operator checks: split over 10000, unknown image, impossible bet_type, RFQ market ids are not contest markets', async () => {
    const bad = await op('POST /v1/admin/contests', contestBody({ winning_split_bps: [6000, 5000], entry_opens_at_ms: Date.now() + 120_000 }));
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['/entry_opens_at_ms', '/winning_split_bps']);
    expect((await op('POST /v1/admin/contests', contestBody({ bet_type: { kind: 'num_bets', value: 3 } }))).status).toBe(400);
    expect((await op('POST /v1/admin/contests', contestBody({ image_id: randomUUID() }))).body.code).toBe('IMAGE_NOT_FOUND');
    const withDefault = await op('POST /v1/admin/contests', contestBody({ image_id: 'default-culture' }));
    expect(withDefault.body.image_url).toBe('/v1/pool-images/default-culture/raw');
    const rfq = await api('GET /v1/markets/current?asset=BTC&duration_secs=300');
    expect((await op(`POST /v1/admin/markets/${rfq.body.market.market_id}/resolve`, { outcome: 'YES' })).body.code).toBe('MARKET_NOT_FOUND');
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
      await sql.query(
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
