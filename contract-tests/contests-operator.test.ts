// The operator's contest API through the generated client: every documented status of createContest,
// resolveMarket and voidContest except 500/503 (pending); errors.test.ts's framework cases also cover their
// 401 and body 400/413/415 with the operator token. Money moves are checked on the users' balances.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createContest,
  getContest,
  getCurrentMarket,
  getPoolImageRaw,
  resolveMarket,
  uploadPoolImage,
  voidContest,
} from '../generated/openapi/sdk.gen.ts';
import { encodePng } from '../src/domain/contests/images.js';
import { expectErrorBody } from './harness.ts';
import {
  balances,
  contestBody,
  enter,
  expectPot,
  MICRO,
  newContest,
  newUser,
  resolve,
  startContestService,
  waitForStatus,
  type Env,
} from './contests-fixtures.ts';

let env: Env;

beforeAll(async () => {
  env = await startContestService('contests-operator');
});
afterAll(async () => {
  if (env) expect(await env.svc.stop()).toBe(0);
});

describe('createContest', () => {
  it('201: the created contest echoes the request, defaults filled in, markets OPEN with ids, pot = prize pool', async () => {
    const body = contestBody({
      description: 'Pick the words.',
      entry_opens_at_ms: Date.now() - 1000,
      live_ends_at_ms: Date.now() + 120_000,
      markets: [
        {
          category: 'words',
          name: 'Says "inflation"',
          description: 'YES at 10+ mentions.',
          source_kind: 'kalshi',
          source_event_id: 'EV-1',
          source_market_id: 'MK-1',
          betting_closes_at_ms: Date.now() + 60_000,
          live_ends_at_ms: Date.now() + 90_000,
          resolution_time_ms: Date.now() + 100_000,
        },
        { category: 'words', name: 'Says "recession"' },
      ],
    });
    const before = Date.now();
    const { data: c } = await env.operator.run(createContest({ client: env.operator.client, body }), { status: 201 });
    expect(c).toMatchObject({
      title: body.title,
      category: 'mentions',
      game_type: 'lineups',
      status: 'open',
      description: 'Pick the words.',
      bet_amount_micros: MICRO,
      protocol_prize_pool_micros: 10 * MICRO,
      total_pot_micros: 10 * MICRO,
      entries_filled: 0,
      entry_cap: 100,
      max_entries_per_user: 1,
      entry_visibility: 'hidden_while_betting_open',
      entry_opens_at_ms: body.entry_opens_at_ms,
      betting_closes_ms: body.betting_closes_ms,
      live_ends_at_ms: body.live_ends_at_ms,
      resolved_at_ms: null,
      caller: null,
      bet_type: { kind: 'num_bets', value: 2 },
      winning_split_bps: [6000, 3000, 1000],
      image_url: '/v1/pool-images/default-mentions/raw',
    });
    expect(c!.created_at_ms).toBeGreaterThanOrEqual(before - 1000);
    expect(c!.created_at_ms).toBeLessThanOrEqual(Date.now() + 1000);
    expect(c!.markets).toHaveLength(2);
    const [m1, m2] = c!.markets;
    expect(m1).toMatchObject({ ...body.markets[0], status: 'OPEN', outcome: null });
    expect(m2).toEqual({
      market_id: m2!.market_id,
      category: 'words',
      name: 'Says "recession"',
      description: null,
      status: 'OPEN',
      outcome: null,
      source_kind: null,
      source_event_id: null,
      source_market_id: null,
      betting_closes_at_ms: null,
      live_ends_at_ms: null,
      resolution_time_ms: null,
    });
    expect(m1!.market_id).not.toBe(m2!.market_id);
    // The same contest through the public read.
    const anon = env.svc.client();
    const { data: read } = await anon.run(getContest({ client: anon.client, path: { id: c!.contest_id } }), { status: 200 });
    expect(read).toEqual(c);
  });

  it('201: image_url is the category default without image_id (and it serves), the uploaded image with one', async () => {
    const anon = env.svc.client();
    for (const category of ['mentions', 'sports', 'culture'] as const) {
      const c = await newContest(env, { category });
      expect(c.image_url).toBe(`/v1/pool-images/default-${category}/raw`);
      const { checked } = await anon.run(getPoolImageRaw({ client: anon.client, path: { image_id: `default-${category}` } }), { status: 200 });
      expect(checked.headers.get('content-type')).toMatch(/^image\//);
    }
    const png = encodePng(2, 2, () => [10, 20, 30]);
    const { data: image } = await env.operator.run(
      uploadPoolImage({
        client: env.operator.client,
        body: new Blob([new Uint8Array(png)], { type: 'image/png' }),
        headers: { 'Content-Type': 'image/png' },
      }),
      { status: 201 },
    );
    const c = await newContest(env, { image_id: image!.image_id });
    expect(c.image_url).toBe(`/v1/pool-images/${image!.image_id}/raw`);
    expect(c.image_url).toBe(image!.url);
    // The image id in another letter case still names the image, and the contest's image_url still serves it.
    const upper = await newContest(env, { image_id: image!.image_id.toUpperCase(), category: 'sports' });
    const served = upper.image_url.match(/^\/v1\/pool-images\/([^/]+)\/raw$/)![1]!;
    const { checked } = await anon.run(getPoolImageRaw({ client: anon.client, path: { image_id: served } }), { status: 200 });
    expect(Buffer.from(checked.text, 'latin1').length).toBeGreaterThan(0);
  });

  it('201: every game type, the visibility and per-user limit as given', async () => {
    for (const game_type of ['lineups', 'outcast', 'survivor', 'streak'] as const) {
      const c = await newContest(env, { game_type, entry_visibility: 'visible', max_entries_per_user: 3 });
      expect(c).toMatchObject({
        game_type,
        entry_visibility: 'visible',
        max_entries_per_user: 3,
        entry_opens_at_ms: null,
        live_ends_at_ms: null,
        description: null,
      });
    }
  });

  it('404 IMAGE_NOT_FOUND: an image_id that names no image', async () => {
    const { checked } = await env.operator.run(createContest({ client: env.operator.client, body: contestBody({ image_id: randomUUID() }) }), {
      status: 404,
      code: 'IMAGE_NOT_FOUND',
    });
    expectErrorBody(checked.body);
  });

  it('400 VALIDATION_FAILED: the rules beyond the schema, every failure in details', async () => {
    const closes = Date.now() + 60_000;
    const { checked } = await env.operator.run(
      createContest({
        client: env.operator.client,
        body: contestBody({ betting_closes_ms: closes, winning_split_bps: [6000, 5000], entry_opens_at_ms: closes, live_ends_at_ms: closes - 1 }),
      }),
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    const details = (checked.body as { details: unknown[] }).details;
    for (const path of ['/winning_split_bps', '/entry_opens_at_ms', '/live_ends_at_ms'])
      expect(details).toContainEqual(expect.objectContaining({ in: 'body', path }));
    await env.operator.run(
      createContest({ client: env.operator.client, body: contestBody({ markets: [{ category: 'words', name: 'only one' }] }) }),
      {
        status: 400,
        code: 'VALIDATION_FAILED',
      },
    );
    const perCategory = await env.operator.run(
      createContest({
        client: env.operator.client,
        body: contestBody({
          bet_type: { kind: 'bets_per_category', value: 2 },
          markets: [
            { category: 'a', name: 'a1' },
            { category: 'a', name: 'a2' },
            { category: 'b', name: 'b1' },
          ],
        }),
      }),
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    expect((perCategory.checked.body as { details: unknown[] }).details).toContainEqual(
      expect.objectContaining({ in: 'body', path: '/bet_type/value' }),
    );
    // The largest pot must stay a safe JSON integer.
    await env.operator.run(createContest({ client: env.operator.client, body: contestBody({ bet_amount_micros: 2 ** 52, entry_cap: 2 }) }), {
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    await env.svc.call(
      'createContest',
      { token: env.svc.operatorToken, body: { ...contestBody(), bet_amount_micros: 0 } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
  });

  it('403 FORBIDDEN with a user session', async () => {
    const u = await newUser(env);
    const { checked } = await u.api.run(createContest({ client: u.api.client, body: contestBody() }), { status: 403, code: 'FORBIDDEN' });
    expectErrorBody(checked.body);
  });
});

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
    const [a, b, cc] = await Promise.all([newUser(env, { fund: 5 * MICRO }), newUser(env, { fund: 5 * MICRO }), newUser(env, { fund: 5 * MICRO })]);
    // Pot 2 + 3 x 1 = 5 USDC; split 70/30.
    const c = await newContest(env, { protocol_prize_pool_micros: 2 * MICRO, winning_split_bps: [7000, 3000] });
    await enter(a, c, 'uu'); // 2 wins
    await enter(b, c, 'ud'); // 1 win
    await enter(cc, c, 'dd'); // 0 wins
    expect(await balances(a)).toEqual({ available: 4 * MICRO, reserved: MICRO });
    await resolve(env, c.markets[0]!.market_id, 'YES');
    const anon = env.svc.client();
    expect((await anon.run(getContest({ client: anon.client, path: { id: c.contest_id } }), { status: 200 })).data!.status).toBe('open');
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
    const anon = env.svc.client();
    const { data } = await anon.run(getCurrentMarket({ client: anon.client, query: { asset: 'BTC', duration_secs: 300 } }), { status: 200 });
    await env.operator.run(resolveMarket({ client: env.operator.client, path: { market_id: data!.market.market_id }, body: { outcome: 'YES' } }), {
      status: 404,
      code: 'MARKET_NOT_FOUND',
    });
  });

  it('409 CONTEST_ALREADY_SETTLED: a market of a voided contest, even though the market itself is still OPEN', async () => {
    const c = await newContest(env);
    const { data: voided } = await env.operator.run(voidContest({ client: env.operator.client, path: { id: c.contest_id } }), { status: 200 });
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
    const anon = env.svc.client();
    expect((await anon.run(getContest({ client: anon.client, path: { id: c.contest_id } }), { status: 200 })).data!.status).toBe('open');
  });
});
