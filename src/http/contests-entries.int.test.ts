// Contest entries through the real service (src/testing/contest-service.ts): the cap under 20 concurrent
// entries, the popular entry's visibility rule, double submits, every entry rule's error, and the operator's
// checks on a new contest. The ledger check runs after every scenario.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createContest as createContestSdk,
  createContestEntry,
  getContest,
  getContestPopularEntry,
  getCurrentMarket,
  getProfileContest,
  resolveMarket,
} from '../../generated/openapi/sdk.gen.js';
import type { CreateContestRequest } from '../../generated/openapi/types.gen.js';
import { send } from '../testing/sdk-client.js';
import { balances, client, contestBody, createContest, enter, fundedUser, sleep, useContestService } from '../testing/contest-service.js';

const s = useContestService('contestsent');
const popularEntry = (id: string) => send(getContestPopularEntry({ client: client(), path: { id } }));
const voidMarket = (marketId: number) =>
  send(resolveMarket({ client: client(s.operator), path: { market_id: marketId }, body: { outcome: 'VOID' } }));
// `over` may hold any field (a test's own wrong values); the service, not the client, judges the body.
const newContest = (over: Record<string, unknown>) =>
  send(createContestSdk({ client: client(s.operator), body: contestBody(over) as CreateContestRequest }));

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
    expect(losers.map((r) => r.error?.code)).toEqual(Array(17).fill('CONTEST_FULL'));
    const after = await send(getContest({ client: client(), path: { id: c.contest_id } }));
    expect(after.data).toMatchObject({ entries_filled: 5, total_pot_micros: 500_000 });
    const reserved = await Promise.all(racers.map(async (u) => (await balances(u)).reserved));
    expect(reserved.filter((r) => r === 100_000)).toHaveLength(3);
    expect(reserved.filter((r) => r === 0)).toHaveLength(17);
    const popular = await popularEntry(c.contest_id);
    expect(popular.data?.markets[0]).toEqual({ market_id: m, yes_count: 2, no_count: 3 });
  });

  it("popular entry at each state of the visibility rule: one entrant's picks never show while betting is open", async () => {
    const closesAt = Date.now() + 6_000; // room for the set-up on a busy machine
    const hidden = await createContest({ betting_closes_ms: closesAt, bet_type: { kind: 'num_bets', value: 1 } });
    const visible = await createContest({
      betting_closes_ms: closesAt,
      bet_type: { kind: 'num_bets', value: 1 },
      entry_visibility: 'visible',
    });
    const popular = async (id: string) => (await popularEntry(id)).data;
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
    expect((await popular(visible.contest_id))?.entry_visibility).toBe('visible');
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
    for (const r of results.filter((x) => x.status !== 201)) expect(r.error?.code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
    expect(new Set(created.map((r) => JSON.stringify(r.data))).size).toBe(1);
    const replay = await enter(u, c.contest_id, [[m, 'up']], key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(created[0]!.data);
    expect(await balances(u)).toEqual({ available: 900_000, reserved: 100_000 });
    expect((await enter(u, c.contest_id, [[m, 'down']], key)).error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await enter(u, other.contest_id, [[m, 'up']], key)).error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
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
    const expectCode = async <R extends { status: number; error?: { code: string; details?: unknown } }>(
      p: Promise<R>,
      status: number,
      code: string,
    ) => {
      const r = await p;
      expect([r.status, r.error?.code], JSON.stringify(r.error)).toEqual([status, code]);
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
      send(
        createContestEntry({
          client: client(u.token),
          path: { id: 'not-a-uuid' },
          body: { picks: [{ market_id: m1, direction: 'up' }], idempotency_key: randomUUID() },
        }),
      ),
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
    expect(JSON.stringify(foreign.error?.details)).toContain('not a market of this contest');
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
    await expectCode(popularEntry(survivor.contest_id), 404, 'CONTEST_NOT_FOUND');
    await expectCode(
      send(getProfileContest({ client: client(), path: { handle: u.handle, id: survivor.contest_id } })),
      404,
      'CONTEST_NOT_FOUND',
    );
    await expectCode(
      send(getProfileContest({ client: client(), path: { handle: `nobody_${randomUUID().slice(0, 6)}`, id: c.contest_id } })),
      404,
      'USER_NOT_FOUND',
    );
    expect((await send(getContest({ client: client(), path: { id: survivor.contest_id } }))).data?.game_type).toBe('survivor');
    // While betting is open a market can only be voided: a pick on it is refused.
    expect((await voidMarket(m1)).status).toBe(200);
    const c2 = await createContest({ max_entries_per_user: 1, bet_type: { kind: 'num_bets', value: 1 } });
    expect((await voidMarket(c2.markets[0]!.market_id)).status).toBe(200);
    await expectCode(enter(poor, c2.contest_id, [[c2.markets[0]!.market_id, 'up']]), 422, 'INVALID_PICKS');
  });

  it('operator checks: split over 10000, unknown image, impossible bet_type, RFQ market ids are not contest markets', async () => {
    const bad = await newContest({ winning_split_bps: [6000, 5000], entry_opens_at_ms: Date.now() + 120_000 });
    expect(bad.status).toBe(400);
    expect((bad.error?.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['/entry_opens_at_ms', '/winning_split_bps']);
    expect((await newContest({ bet_type: { kind: 'num_bets', value: 3 } })).status).toBe(400);
    expect((await newContest({ image_id: randomUUID() })).error?.code).toBe('IMAGE_NOT_FOUND');
    const withDefault = await newContest({ image_id: 'default-culture' });
    expect(withDefault.data?.image_url).toBe('/v1/pool-images/default-culture/raw');
    const rfq = await send(getCurrentMarket({ client: client(), query: { asset: 'BTC', duration_secs: 300 } }));
    const rfqMarketId = rfq.data!.market.market_id;
    expect(
      (await send(resolveMarket({ client: client(s.operator), path: { market_id: rfqMarketId }, body: { outcome: 'YES' } }))).error?.code,
    ).toBe('MARKET_NOT_FOUND');
  });
});
