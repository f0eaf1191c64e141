// The operator's resolveMarket and voidContest through the generated client: every documented status except
// 500/503 (pending); errors.test.ts's framework cases also cover their 401 and body 400/413/415 with the
// operator token. Money moves are checked on the users' balances.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getContest, getCurrentMarket, resolveMarket, voidContest } from '../generated/openapi/sdk.gen.ts';
import { expectErrorBody } from './harness.ts';
import { balances, enter, expectPot, MICRO, newContest, newUser, resolve, useContestService, waitForStatus } from './contests-fixtures.ts';

const env = useContestService('contests-settle');

describe('resolveMarket', () => {
  it('200: YES and NO give RESOLVED with the outcome, VOID gives VOIDED with outcome null; then 409 MARKET_ALREADY_RESOLVED', async () => {
    const c = await newContest(env, {
      markets: [
        { category: 'a', name: 'one' },
        { category: 'a', name: 'two' },
        { category: 'a', name: 'three' },
      ],
    });
    const [m1, m2, m3] = c.markets;
    expect((await resolve(env, m1!.market_id, 'YES')).data).toEqual({ ...m1, status: 'RESOLVED', outcome: 'YES' });
    expect((await resolve(env, m2!.market_id, 'NO')).data).toEqual({ ...m2, status: 'RESOLVED', outcome: 'NO' });
    expect((await resolve(env, m3!.market_id, 'VOID')).data).toEqual({ ...m3, status: 'VOIDED', outcome: null });
    for (const [m, outcome] of [
      [m1, 'NO'],
      [m2, 'NO'],
      [m3, 'YES'],
    ] as const) {
      const { checked } = await env.operator.run(
        resolveMarket({ client: env.operator.client, path: { market_id: m!.market_id }, body: { outcome } }),
        {
          status: 409,
          code: 'MARKET_ALREADY_RESOLVED',
        },
      );
      expectErrorBody(checked.body);
    }
    const done = await waitForStatus(env, c.contest_id, 'resolved');
    expect(done.markets.map((m) => [m.status, m.outcome])).toEqual([
      ['RESOLVED', 'YES'],
      ['RESOLVED', 'NO'],
      ['VOIDED', null],
    ]);
  });

  it('the last market resolves and pays the contest: winners get their share in available, reserved bets leave', async () => {
    const [a, b, cc] = await Promise.all([
      newUser(env, { fund: 5 * MICRO }),
      newUser(env, { fund: 5 * MICRO }),
      newUser(env, { fund: 5 * MICRO }),
    ]);
    // Pot 2 + 3 x 1 = 5 USDC; split 70/30.
    const c = await newContest(env, { protocol_prize_pool_micros: 2 * MICRO, winning_split_bps: [7000, 3000] });
    await enter(a, c, 'uu'); // 2 wins
    await enter(b, c, 'ud'); // 1 win
    await enter(cc, c, 'dd'); // 0 wins
    expect(await balances(a)).toEqual({ available: 4 * MICRO, reserved: MICRO });
    await resolve(env, c.markets[0]!.market_id, 'YES');
    expect((await env.anon.run(getContest({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 })).data!.status).toBe(
      'open',
    );
    await resolve(env, c.markets[1]!.market_id, 'YES');
    const done = await waitForStatus(env, c.contest_id, 'resolved');
    expect(done.resolved_at_ms).toEqual(expect.any(Number));
    expect(done.entries_filled).toBe(3);
    expectPot(done);
    expect(await balances(a)).toEqual({ available: 4 * MICRO + 3_500_000, reserved: 0 });
    expect(await balances(b)).toEqual({ available: 4 * MICRO + 1_500_000, reserved: 0 });
    expect(await balances(cc)).toEqual({ available: 4 * MICRO, reserved: 0 });
  });

  it('every market VOID: the contest is voided and every bet refunded', async () => {
    const u = await newUser(env, { fund: 3 * MICRO });
    const c = await newContest(env);
    await enter(u, c, 'ud');
    await resolve(env, c.markets[0]!.market_id, 'VOID');
    await resolve(env, c.markets[1]!.market_id, 'VOID');
    const done = await waitForStatus(env, c.contest_id, 'voided');
    expect(done.resolved_at_ms).toBeNull();
    expect(await balances(u)).toEqual({ available: 3 * MICRO, reserved: 0 });
  });

  it('404 MARKET_NOT_FOUND: no contest market has the id', async () => {
    const { checked } = await env.operator.run(
      resolveMarket({ client: env.operator.client, path: { market_id: 9_007_199_254 }, body: { outcome: 'YES' } }),
      {
        status: 404,
        code: 'MARKET_NOT_FOUND',
      },
    );
    expectErrorBody(checked.body);
  });

  it('404 MARKET_NOT_FOUND: an RFQ window market_id is no contest market', async () => {
    const { data } = await env.anon.run(getCurrentMarket({ client: env.anon.client, query: { asset: 'BTC', duration_secs: 300 } }), {
      status: 200,
    });
    await env.operator.run(
      resolveMarket({ client: env.operator.client, path: { market_id: data!.market.market_id }, body: { outcome: 'YES' } }),
      {
        status: 404,
        code: 'MARKET_NOT_FOUND',
      },
    );
  });

  it('409 CONTEST_ALREADY_SETTLED: a market of a voided contest, even though the market itself is still OPEN', async () => {
    const c = await newContest(env);
    const { data: voided } = await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), {
      status: 200,
    });
    expect(voided!.markets[0]!.status).toBe('OPEN');
    const { checked } = await env.operator.run(
      resolveMarket({ client: env.operator.client, path: { market_id: c.markets[0]!.market_id }, body: { outcome: 'YES' } }),
      {
        status: 409,
        code: 'CONTEST_ALREADY_SETTLED',
      },
    );
    expectErrorBody(checked.body);
  });

  it('409 BETTING_OPEN: an outcome while the contest takes entries; VOID is allowed', async () => {
    const c = await newContest(env);
    for (const outcome of ['YES', 'NO'] as const) {
      const { checked } = await env.operator.run(
        resolveMarket({ client: env.operator.client, path: { market_id: c.markets[0]!.market_id }, body: { outcome } }),
        { status: 409, code: 'BETTING_OPEN' },
      );
      expectErrorBody(checked.body);
      expect(checked.body.details).toMatchObject({ contest_id: c.contest_id, betting_closes_at_ms: c.betting_closes_ms });
    }
    expect((await resolve(env, c.markets[1]!.market_id, 'VOID')).data).toMatchObject({ status: 'VOIDED', outcome: null });
  });

  it('400 VALIDATION_FAILED for an unknown outcome; 403 FORBIDDEN with a user session', async () => {
    const c = await newContest(env);
    await env.svc.call(
      'resolveMarket',
      { token: env.svc.operatorToken, pathParams: { market_id: c.markets[0]!.market_id }, body: { outcome: 'MAYBE' } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    const u = await newUser(env);
    await u.api.run(resolveMarket({ client: u.api.client, path: { market_id: c.markets[0]!.market_id }, body: { outcome: 'YES' } }), {
      status: 403,
      code: 'FORBIDDEN',
    });
    // Neither touched the market.
    expect((await resolve(env, c.markets[0]!.market_id, 'NO')).data!.outcome).toBe('NO');
  });
});

describe('voidContest', () => {
  it('200: status voided, every entry refunded to available; then 409 CONTEST_ALREADY_SETTLED', async () => {
    const [a, b] = await Promise.all([newUser(env, { fund: 2 * MICRO }), newUser(env, { fund: 2 * MICRO })]);
    const c = await newContest(env, { max_entries_per_user: 2 });
    await enter(a, c, 'uu');
    await enter(a, c, 'dd');
    await enter(b, c, 'ud');
    expect(await balances(a)).toEqual({ available: 0, reserved: 2 * MICRO });
    const { data } = await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), { status: 200 });
    expect(data).toMatchObject({ contest_id: c.contest_id, status: 'voided', resolved_at_ms: null, caller: null, entries_filled: 3 });
    expect(data!.markets.map((m) => m.market_id)).toEqual(c.markets.map((m) => m.market_id));
    expectPot(data!);
    expect(await balances(a)).toEqual({ available: 2 * MICRO, reserved: 0 });
    expect(await balances(b)).toEqual({ available: 2 * MICRO, reserved: 0 });
    const { checked } = await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), {
      status: 409,
      code: 'CONTEST_ALREADY_SETTLED',
    });
    expectErrorBody(checked.body);
    expect(await balances(a)).toEqual({ available: 2 * MICRO, reserved: 0 });
  });

  it('409 CONTEST_ALREADY_SETTLED: a resolved contest', async () => {
    const c = await newContest(env, { bet_type: { kind: 'num_bets', value: 1 }, markets: [{ category: 'a', name: 'only' }] });
    await resolve(env, c.markets[0]!.market_id, 'YES');
    await waitForStatus(env, c.contest_id, 'resolved');
    await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), {
      status: 409,
      code: 'CONTEST_ALREADY_SETTLED',
    });
  });

  it('404 CONTEST_NOT_FOUND; 403 FORBIDDEN with a user session', async () => {
    const { checked } = await env.operator.run(voidContest({ client: env.operator.client, path: { id: randomUUID() } }), {
      status: 404,
      code: 'CONTEST_NOT_FOUND',
    });
    expectErrorBody(checked.body);
    const c = await newContest(env);
    const u = await newUser(env);
    await u.api.run(voidContest({ client: u.api.client, path: { id: c.contest_id } }), { status: 403, code: 'FORBIDDEN' });
    expect((await env.anon.run(getContest({ client: env.anon.client, path: { id: c.contest_id } }), { status: 200 })).data!.status).toBe(
      'open',
    );
  });
});
