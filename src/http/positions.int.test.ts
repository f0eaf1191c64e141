// Positions to payouts over HTTP against the real service (PostgreSQL + Redis, API and workers in one
// process): getMarket and the operator's window resolution with its 409s and 404s, the auth matrix of
// the taker, market-maker and operator routes, the empty answers of a user who never traded, forged
// cursors, getTakerPnl's ?wallet=, and one trade on 8-second windows taken from open to paid: the
// operator resolves one window, the demo feed the other exactly as the formula published in the spec
// predicts (recomputed here from the spec's text), and every read agrees with the ledger.
// The fills are made by the RFQ rules in this process against the service's database (the RFQ HTTP and
// WebSocket routes are tested elsewhere); everything read is read over HTTP.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { MarketMakerClient } from '@contest-rfq/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../db/orm.js';
import type { Direction } from '../domain/rfq/typed-data.js';
import { call, randomWallet, type TestWallet } from '../testing/identity.js';
import { ledgerProblems } from '../testing/money.js';
import { fillPosition, rfqTestDeps } from '../testing/position-fill.js';
import { startTestService, type TestService } from '../testing/test-service.js';
import { newContest } from '../testing/contests.js';

const DURATION = 8;
const BUFFER = 3000;
const SEED = 'positions-itest';
let t: TestService;
let base: string;
let orm: Orm;
const mmClients: MarketMakerClient[] = [];

beforeAll(async () => {
  t = await startTestService('positions', {
    MARKET_ASSETS: 'BTC,ETH',
    MARKET_DURATIONS: `${DURATION},60`,
    MARKET_BETTING_CLOSE_BUFFER_MS: String(BUFFER),
    // The feed waits 3 s past a window's end: the operator resolves the other window before that.
    RESOLUTION_DELAY_MS: '3000',
    DEMO_PRICE_SEED: SEED,
  });
  base = t.svc.baseUrl;
  orm = await createOrm({ databaseUrl: t.db.url });
});

afterAll(async () => {
  await Promise.all(mmClients.map((c) => c.stop()));
  await orm?.close(true);
  await t?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (ms: number) => {
  while (Date.now() < ms) await sleep(Math.min(100, ms - Date.now()));
};

async function signIn(wallet: TestWallet = randomWallet(), fund = 0): Promise<{ token: string; userId: string; wallet: TestWallet }> {
  const s = await call(base, 'POST /v1/auth/session', {
    body: { privy_token: await t.privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
  });
  expect(s.status).toBe(200);
  if (fund) {
    const d = await call(base, 'POST /v1/users/deposit', {
      token: s.body.session_token,
      body: { amount_micros: fund, idempotency_key: randomUUID() },
    });
    expect(d.status).toBe(200);
  }
  return { token: s.body.session_token, userId: s.body.user_id, wallet };
}

/** A registered market maker's bearer token, from the real WebSocket handshake. */
async function mmToken(wallet: TestWallet = randomWallet()): Promise<string> {
  const reg = await call(base, 'POST /v1/admin/market-makers', {
    token: t.operatorToken,
    body: { wallet_address: wallet.address, name: 'Positions MM' },
  });
  expect(reg.status).toBe(201);
  const client = new MarketMakerClient({ url: `ws://127.0.0.1:${t.svc.port}/v1/ws`, account: wallet, reconnect: false });
  mmClients.push(client);
  return (await client.start().waitForSession()).token;
}

const windowOf = async (asset: string, duration: number, startMs: number) => {
  const r = await call(base, `GET /v1/markets/lookup?asset=${asset}&duration_secs=${duration}&window_start_ms=${startMs}`);
  expect(r.status).toBe(200);
  return r.body.market.market_id as number;
};
const market = (id: number) => call(base, `GET /v1/markets/${id}`);
const resolve = (id: number, outcome: string, token = t.operatorToken) =>
  call(base, `POST /v1/admin/market-windows/${id}/resolve`, { token, body: { outcome } });

describe('getMarket and resolveMarketWindow', () => {
  it('a fresh window is OPEN (not cacheable); resolving it is 409 BETTING_OPEN', async () => {
    const cur = await call(base, 'GET /v1/markets/current?asset=BTC&duration_secs=60');
    expect(cur.status).toBe(200);
    const m = cur.body.market;
    const r = await market(m.market_id);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({
      market: {
        ...m,
        end_at_ms: m.start_at_ms + 60_000,
        status: 'OPEN',
        outcome: null,
        open_price_micros: null,
        close_price_micros: null,
        price_source: null,
        resolved_at_ms: null,
        resolution_rule: null,
        dispute: null,
        sources: [],
      },
    });
    const early = await resolve(m.market_id, 'YES');
    expect([early.status, early.body.code]).toEqual([409, 'BETTING_OPEN']);
    expect(early.body.details).toEqual({ betting_closes_at_ms: m.betting_closes_at_ms });
    // the routes next to it still answer as before
    expect((await call(base, 'GET /v1/markets/current?asset=ETH&duration_secs=60')).body.market.asset).toBe('ETH');
  });

  it('a closed window resolves once (VOID here), then is immutable and 409 MARKET_ALREADY_RESOLVED', async () => {
    const id = await windowOf('ETH', 60, Math.floor(Date.now() / 60_000) * 60_000 - 120_000);
    const before = await market(id);
    expect(before.body.market.status).toBe('CLOSED');
    const r = await resolve(id, 'VOID');
    expect(r.status).toBe(200);
    expect(r.body.market).toMatchObject({ market_id: id, status: 'VOIDED', outcome: null, price_source: 'operator', open_price_micros: null });
    expect(r.body.market.resolved_at_ms).toEqual(expect.any(Number));
    const again = await resolve(id, 'YES');
    expect([again.status, again.body.code]).toEqual([409, 'MARKET_ALREADY_RESOLVED']);
    const after = await market(id);
    expect(after.body).toEqual(r.body);
    expect(after.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
  });

  it('404 MARKET_NOT_FOUND for an unknown id and for a contest market, on both routes; 400 for a malformed id', async () => {
    const contest = await newContest(base, t.operatorToken, { title: 'Positions contest', category: 'mentions' });
    for (const id of [contest.markets[0]!, 987_654_321]) {
      const g = await market(id);
      expect([g.status, g.body.code]).toEqual([404, 'MARKET_NOT_FOUND']);
      const r = await resolve(id, 'NO');
      expect([r.status, r.body.code]).toEqual([404, 'MARKET_NOT_FOUND']);
    }
    for (const bad of ['0', 'abc', '1e3']) expect((await call(base, `GET /v1/markets/${bad}`)).body.code).toBe('VALIDATION_FAILED');
  });
});

describe('who may call what', () => {
  const TAKER_ROUTES = ['GET /v1/positions', `GET /v1/positions/${randomUUID()}`, 'GET /v1/portfolio', 'GET /v1/portfolio/pnl'];
  const MM_ROUTES = [`GET /v1/mm/taker_pnl?wallet=${randomWallet().address}`, 'GET /v1/mm/pnl', 'GET /v1/mm/fills'];

  it('no token 401 UNAUTHORIZED; a market-maker or operator token on taker routes, a user or operator token on /v1/mm, a user or market-maker token on the operator route: 403', async () => {
    const user = await signIn();
    const mm = await mmToken();
    const id = await windowOf('BTC', 60, Math.floor(Date.now() / 60_000) * 60_000 - 180_000);
    const cases: Array<[string, string | undefined, number, string]> = [
      ...TAKER_ROUTES.flatMap((r): Array<[string, string | undefined, number, string]> => [
        [r, undefined, 401, 'UNAUTHORIZED'],
        [r, mm, 403, 'FORBIDDEN'],
        [r, t.operatorToken, 403, 'FORBIDDEN'],
      ]),
      ...MM_ROUTES.flatMap((r): Array<[string, string | undefined, number, string]> => [
        [r, undefined, 401, 'UNAUTHORIZED'],
        [r, user.token, 403, 'FORBIDDEN'],
        [r, t.operatorToken, 403, 'FORBIDDEN'],
      ]),
    ];
    for (const [route, token, status, code] of cases) {
      const r = await call(base, route, token === undefined ? {} : { token });
      expect({ route, status: r.status, code: r.body.code }).toEqual({ route, status, code });
    }
    for (const [token, status, code] of [
      [undefined, 401, 'UNAUTHORIZED'],
      [user.token, 403, 'FORBIDDEN'],
      [mm, 403, 'FORBIDDEN'],
      ['not-the-operator-token', 401, 'INVALID_SESSION'],
    ] as const) {
      const r = await call(base, `POST /v1/admin/market-windows/${id}/resolve`, { body: { outcome: 'YES' }, ...(token ? { token } : {}) });
      expect({ token, status: r.status, code: r.body.code }).toEqual({ token, status, code });
    }
    expect((await market(id)).body.market.status).toBe('CLOSED'); // none of them resolved it
  });
});

describe('a user and a market maker who never traded', () => {
  it('get empty lists and zero figures; an unknown position is 404 POSITION_NOT_FOUND', async () => {
    const u = await signIn();
    const list = await call(base, 'GET /v1/positions', { token: u.token });
    expect([list.status, list.body]).toEqual([200, { positions: [], next_cursor: null }]);
    expect((await call(base, 'GET /v1/positions?status=won&limit=500', { token: u.token })).body).toEqual({ positions: [], next_cursor: null });
    const one = await call(base, `GET /v1/positions/${randomUUID()}`, { token: u.token });
    expect([one.status, one.body.code]).toEqual([404, 'POSITION_NOT_FOUND']);
    const p = await call(base, 'GET /v1/portfolio', { token: u.token });
    expect(p.status).toBe(200);
    expect(p.body).toEqual({
      open_positions: 0,
      open_stake_micros: '0',
      potential_payout_micros: '0',
      settled_positions: 0,
      wins: 0,
      losses: 0,
      voided: 0,
      realized_pnl_micros: '0',
      as_of_ms: expect.any(Number),
    });
    expect(Math.abs(p.body.as_of_ms - Date.now())).toBeLessThan(60_000);
    expect((await call(base, 'GET /v1/portfolio/pnl?from_ms=0', { token: u.token })).body).toEqual({ events: [], next_cursor: null });

    const wallet = randomWallet();
    const mm = await mmToken(wallet);
    const pnl = await call(base, 'GET /v1/mm/pnl', { token: mm });
    expect(pnl.body).toEqual({
      wallet_address: wallet.address,
      realized_pnl_micros: '0',
      trade_count: 0,
      open_liability_micros: '0',
      as_of_ms: expect.any(Number),
    });
    expect((await call(base, 'GET /v1/mm/fills?status=open', { token: mm })).body).toEqual({ fills: [], next_cursor: null });
  });

  it('a forged or edited cursor is 400 INVALID_CURSOR on every list; a bad status or limit is 400 VALIDATION_FAILED', async () => {
    const u = await signIn();
    const mm = await mmToken();
    const forged = `${Buffer.from(JSON.stringify({ t: Date.now(), i: randomUUID() })).toString('base64url')}.${randomBytes(16).toString('base64url')}`;
    for (const [route, token] of [
      ['GET /v1/positions', u.token],
      ['GET /v1/portfolio/pnl', u.token],
      ['GET /v1/mm/fills', mm],
    ] as const) {
      for (const cursor of [forged, 'x']) {
        const r = await call(base, `${route}?cursor=${encodeURIComponent(cursor)}`, { token });
        expect({ route, status: r.status, code: r.body.code }).toEqual({ route, status: 400, code: 'INVALID_CURSOR' });
      }
      const bad = await call(base, `${route}?limit=ten`, { token });
      expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    const status = await call(base, 'GET /v1/positions?status=pending', { token: u.token });
    expect([status.status, status.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('getTakerPnl: no wallet is 400 VALIDATION_FAILED; an unknown wallet and a user who never traded have stats null', async () => {
    const mm = await mmToken();
    const none = await call(base, 'GET /v1/mm/taker_pnl', { token: mm });
    expect([none.status, none.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(none.body.details).toContainEqual(expect.objectContaining({ in: 'query', path: '/wallet' }));
    const bad = await call(base, 'GET /v1/mm/taker_pnl?wallet=0x1234', { token: mm });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const stranger = randomWallet();
    const r = await call(base, `GET /v1/mm/taker_pnl?wallet=${stranger.address.toLowerCase()}`, { token: mm });
    expect([r.status, r.body]).toEqual([200, { wallet_address: stranger.address, stats: null }]);
    const u = await signIn();
    const idle = await call(base, `GET /v1/mm/taker_pnl?wallet=${u.wallet.address}`, { token: mm });
    expect(idle.body).toEqual({ wallet_address: u.wallet.address, stats: null });
  });
});

// ---------------------------------------------------------------- a trade, open to paid

/** The demo price feed exactly as spec/openapi.yaml (getMarket) publishes it, at the default 50 bps. */
function publishedDemoPrice(asset: 'BTC' | 'ETH', tsMs: number): bigint {
  const baseMicros = { BTC: 100_000_000_000n, ETH: 3_000_000_000n }[asset];
  const h = createHash('sha256')
    .update(`${SEED}:${asset}:${Math.floor(tsMs / 1000)}`)
    .digest();
  const w = (baseMicros * 50n) / 10_000n;
  return baseMicros - w + (BigInt(h.readUInt32BE(0)) % (2n * w + 1n));
}

const deps = rfqTestDeps(BUFFER, 400); // three fills fit in a window's 5 s of betting
const fill = (taker: { userId: string; wallet: TestWallet }, maker: TestWallet, legs: Array<[number, Direction]>) =>
  fillPosition(orm, deps, { taker, maker, legs });

describe('a trade from open to paid', () => {
  it('positions, portfolio, PnL history, taker stats and maker figures follow the operator and the demo feed', async () => {
    const taker = await signIn(randomWallet(), 20_000_000);
    const makerWallet = randomWallet();
    await signIn(makerWallet, 20_000_000); // the maker's collateral: the user with its wallet
    const mm = await mmToken(makerWallet);
    const tok = { token: taker.token };

    // The next 8 s windows, from their start (5 s of betting): BTC resolves from the feed, ETH by the operator.
    const start = (Math.floor(Date.now() / (DURATION * 1000)) + 1) * DURATION * 1000;
    const end = start + DURATION * 1000;
    const [btc, eth] = [await windowOf('BTC', DURATION, start), await windowOf('ETH', DURATION, start)];
    await until(start);
    const single = await fill(taker, makerWallet, [[btc, 'up']]);
    const ethDown = await fill(taker, makerWallet, [[eth, 'down']]);
    const parlay = await fill(taker, makerWallet, [
      [btc, 'up'],
      [eth, 'up'],
    ]);

    // All open: the reads agree with the fills.
    const open = await call(base, 'GET /v1/positions', tok);
    expect(open.status).toBe(200);
    expect(open.body.positions.map((p: { position_id: string }) => p.position_id)).toEqual([parlay, ethDown, single]);
    const p3 = await call(base, `GET /v1/positions/${parlay}`, tok);
    expect(p3.body).toEqual({
      position_id: parlay,
      rfq_id: expect.any(String),
      role: 'taker',
      status: 'open',
      stake_micros: '1000000',
      odds_bps: 20_000,
      payout_micros: '2000000',
      pnl_micros: null,
      created_at_ms: expect.any(Number),
      resolved_at_ms: null,
      legs: [
        {
          leg_index: 0,
          market_id: btc,
          asset: 'BTC',
          duration_secs: DURATION,
          window_start_ms: start,
          end_at_ms: end,
          direction: 'up',
          outcome: 'pending',
        },
        {
          leg_index: 1,
          market_id: eth,
          asset: 'ETH',
          duration_secs: DURATION,
          window_start_ms: start,
          end_at_ms: end,
          direction: 'up',
          outcome: 'pending',
        },
      ],
    });
    expect(open.body.positions[0]).toEqual(p3.body);
    const other = await signIn();
    expect((await call(base, `GET /v1/positions/${parlay}`, { token: other.token })).body.code).toBe('POSITION_NOT_FOUND');
    expect((await call(base, 'GET /v1/portfolio', tok)).body).toMatchObject({
      open_positions: 3,
      open_stake_micros: '3000000',
      potential_payout_micros: '6000000',
      settled_positions: 0,
    });
    expect((await call(base, `GET /v1/mm/taker_pnl?wallet=${taker.wallet.address.toLowerCase()}`, { token: mm })).body).toEqual({
      wallet_address: taker.wallet.address,
      stats: { total_pnl_micros: '0', total_positions: 3, open_positions: 3, wins: 0, losses: 0 },
    });
    expect((await call(base, 'GET /v1/mm/pnl', { token: mm })).body).toMatchObject({ trade_count: 0, open_liability_micros: '3000000' });

    // Pages of 2 and 1; the cursor is bound to its filter.
    const page1 = await call(base, 'GET /v1/positions?limit=2', tok);
    expect(page1.body.positions).toHaveLength(2);
    const page2 = await call(base, `GET /v1/positions?limit=2&cursor=${page1.body.next_cursor}`, tok);
    expect([page2.body.positions.map((p: { position_id: string }) => p.position_id), page2.body.next_cursor]).toEqual([[single], null]);
    expect((await call(base, `GET /v1/positions?status=open&cursor=${page1.body.next_cursor}`, tok)).body.code).toBe('INVALID_CURSOR');
    const fills1 = await call(base, 'GET /v1/mm/fills?limit=1', { token: mm });
    expect(fills1.body.fills[0]).toMatchObject({
      position_id: parlay,
      stake_micros: '1000000',
      odds_bps: 20_000,
      liability_micros: '1000000',
      status: 'open',
      maker_pnl_micros: null,
    });
    expect((await call(base, `GET /v1/mm/fills?cursor=${fills1.body.next_cursor}`, { token: mm })).body.fills).toHaveLength(2);

    // The operator resolves ETH YES once betting has closed: ETH down is lost at once, the parlay waits for BTC.
    expect((await resolve(eth, 'YES')).body.code).toBe('BETTING_OPEN');
    await until(end - BUFFER);
    const resolved = await resolve(eth, 'YES');
    expect(resolved.status).toBe(200);
    expect(resolved.body.market).toMatchObject({ market_id: eth, status: 'RESOLVED', outcome: 'YES', price_source: 'operator' });
    const status = async (id: string) => (await call(base, `GET /v1/positions/${id}`, tok)).body;
    await expect.poll(async () => (await status(ethDown)).status, { timeout: 30_000, interval: 250 }).toBe('lost');
    expect(await status(ethDown)).toMatchObject({ pnl_micros: '-1000000', legs: [expect.objectContaining({ outcome: 'lost' })] });
    expect((await status(parlay)).legs.map((l: { outcome: string }) => l.outcome)).toEqual(['pending', 'won']);

    // The feed resolves BTC after its end as the published formula predicts.
    await expect.poll(async () => (await market(btc)).body.market.status, { timeout: 30_000, interval: 250 }).toBe('RESOLVED');
    const open$ = publishedDemoPrice('BTC', start);
    const close$ = publishedDemoPrice('BTC', end);
    const up = close$ > open$;
    expect((await market(btc)).body.market).toMatchObject({
      outcome: up ? 'YES' : 'NO',
      open_price_micros: open$.toString(),
      close_price_micros: close$.toString(),
      price_source: 'demo',
    });
    const won = up ? 'won' : 'lost';
    await expect
      .poll(async () => [(await status(single)).status, (await status(parlay)).status], { timeout: 30_000, interval: 250 })
      .toEqual([won, won]);

    // Settled: every figure agrees, and the maker's PnL is the taker's with the sign turned.
    const pnlEach = up ? 1_000_000 : -1_000_000;
    const total = 2 * pnlEach - 1_000_000;
    const wins = up ? 2 : 0;
    const portfolio = await call(base, 'GET /v1/portfolio', tok);
    expect(portfolio.body).toMatchObject({
      open_positions: 0,
      open_stake_micros: '0',
      potential_payout_micros: '0',
      settled_positions: 3,
      wins,
      losses: 3 - wins,
      voided: 0,
      realized_pnl_micros: String(total),
    });
    const history = await call(base, 'GET /v1/portfolio/pnl', tok);
    expect(history.body.next_cursor).toBeNull();
    expect(history.body.events.map((e: { position_id: string }) => e.position_id)[0]).toBe(ethDown);
    expect(history.body.events.map((e: { cumulative_micros: string }) => e.cumulative_micros).at(-1)).toBe(String(total));
    expect(new Set(history.body.events.map((e: { position_id: string }) => e.position_id))).toEqual(new Set([single, ethDown, parlay]));
    const later = history.body.events[1].resolved_at_ms as number;
    const sinceLater = await call(base, `GET /v1/portfolio/pnl?from_ms=${later}`, tok);
    expect(sinceLater.body.events.at(-1).cumulative_micros).toBe(String(total)); // running total since the first ever
    expect((await call(base, `GET /v1/mm/taker_pnl?wallet=${taker.wallet.address}`, { token: mm })).body.stats).toEqual({
      total_pnl_micros: String(total),
      total_positions: 3,
      open_positions: 0,
      wins,
      losses: 3 - wins,
    });
    expect((await call(base, 'GET /v1/mm/pnl', { token: mm })).body).toMatchObject({
      wallet_address: makerWallet.address,
      realized_pnl_micros: String(-total),
      trade_count: 3,
      open_liability_micros: '0',
    });
    const lostFills = await call(base, 'GET /v1/mm/fills?status=lost', { token: mm });
    expect(lostFills.body.fills.map((f: { position_id: string }) => f.position_id)).toContain(ethDown);
    expect(lostFills.body.fills.find((f: { position_id: string }) => f.position_id === ethDown).maker_pnl_micros).toBe('1000000');
    expect(await ledgerProblems(t.sql)).toEqual([]);
  });
});
