// Positions' routes over HTTP against the real service (src/testing/positions-service.ts): getMarket and the
// operator's window resolution with its 409s and 404s, the auth matrix of the taker, market-maker and
// operator routes, the empty answers of a user who never traded, forged cursors, and getTakerPnl's ?wallet=.
// A trade from open to paid: positions.int.test.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  getCurrentMarket,
  getMakerPnl,
  getPnlHistory,
  getPortfolio,
  getPosition,
  getTakerPnl,
  listMakerFills,
  listPositions,
  resolveMarketWindow,
} from '../../generated/openapi/sdk.gen.js';
import { call, randomWallet } from '../testing/identity.js';
import { sdkClient, send, type Client } from '../testing/sdk-client.js';
import { newContest } from '../testing/contests.js';
import { base, market, mmToken, resolve, signIn, t, usePositionsService, windowOf } from '../testing/positions-service.js';

usePositionsService('positionsacc');

describe('getMarket and resolveMarketWindow', () => {
  it('a fresh window is OPEN (not cacheable); resolving it is 409 BETTING_OPEN', async () => {
    const cur = await send(getCurrentMarket({ client: sdkClient(base), query: { asset: 'BTC', duration_secs: 60 } }));
    expect(cur.status).toBe(200);
    const m = cur.data!.market;
    const r = await market(m.market_id);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.data).toEqual({
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
    expect([early.status, early.error?.code]).toEqual([409, 'BETTING_OPEN']);
    expect(early.error?.details).toEqual({ betting_closes_at_ms: m.betting_closes_at_ms });
    // the routes next to it still answer as before
    expect((await send(getCurrentMarket({ client: sdkClient(base), query: { asset: 'ETH', duration_secs: 60 } }))).data?.market.asset).toBe(
      'ETH',
    );
  });

  it('a closed window resolves once (VOID here), then is immutable and 409 MARKET_ALREADY_RESOLVED', async () => {
    const id = await windowOf('ETH', 60, Math.floor(Date.now() / 60_000) * 60_000 - 120_000);
    const before = await market(id);
    expect(before.data?.market.status).toBe('CLOSED');
    const r = await resolve(id, 'VOID');
    expect(r.status).toBe(200);
    expect(r.data?.market).toMatchObject({
      market_id: id,
      status: 'VOIDED',
      outcome: null,
      price_source: 'operator',
      open_price_micros: null,
    });
    expect(r.data?.market.resolved_at_ms).toEqual(expect.any(Number));
    const again = await resolve(id, 'YES');
    expect([again.status, again.error?.code]).toEqual([409, 'MARKET_ALREADY_RESOLVED']);
    const after = await market(id);
    expect(after.data).toEqual(r.data);
    expect(after.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
  });

  it('404 MARKET_NOT_FOUND for an unknown id and for a contest market, on both routes; 400 for a malformed id', async () => {
    const contest = await newContest(base, t.operatorToken, { title: 'Positions contest', category: 'mentions' });
    for (const id of [contest.markets[0]!, 987_654_321]) {
      const g = await market(id);
      expect([g.status, g.error?.code]).toEqual([404, 'MARKET_NOT_FOUND']);
      const r = await resolve(id, 'NO');
      expect([r.status, r.error?.code]).toEqual([404, 'MARKET_NOT_FOUND']);
    }
    // call(): malformed ids, which the SDK's integer path parameter cannot carry.
    for (const bad of ['0', 'abc', '1e3']) expect((await call(base, `GET /v1/markets/${bad}`)).body.code).toBe('VALIDATION_FAILED');
  });
});

describe('who may call what', () => {
  type Route = (client: Client) => Promise<{ status: number; error?: { code: string } }>;
  const TAKER_ROUTES: Record<string, Route> = {
    'GET /v1/positions': (client) => send(listPositions({ client })),
    'GET /v1/positions/{id}': (client) => send(getPosition({ client, path: { position_id: randomUUID() } })),
    'GET /v1/portfolio': (client) => send(getPortfolio({ client })),
    'GET /v1/portfolio/pnl': (client) => send(getPnlHistory({ client })),
  };
  const MM_ROUTES: Record<string, Route> = {
    'GET /v1/mm/taker_pnl': (client) => send(getTakerPnl({ client, query: { wallet: randomWallet().address } })),
    'GET /v1/mm/pnl': (client) => send(getMakerPnl({ client })),
    'GET /v1/mm/fills': (client) => send(listMakerFills({ client })),
  };

  it('no token 401 UNAUTHORIZED; a market-maker or operator token on taker routes, a user or operator token on /v1/mm, a user or market-maker token on the operator route: 403', async () => {
    const user = await signIn();
    const mm = await mmToken();
    const id = await windowOf('BTC', 60, Math.floor(Date.now() / 60_000) * 60_000 - 180_000);
    const cases: Array<[string, string | undefined, number, string]> = [
      ...Object.keys(TAKER_ROUTES).flatMap((r): Array<[string, string | undefined, number, string]> => [
        [r, undefined, 401, 'UNAUTHORIZED'],
        [r, mm, 403, 'FORBIDDEN'],
        [r, t.operatorToken, 403, 'FORBIDDEN'],
      ]),
      ...Object.keys(MM_ROUTES).flatMap((r): Array<[string, string | undefined, number, string]> => [
        [r, undefined, 401, 'UNAUTHORIZED'],
        [r, user.token, 403, 'FORBIDDEN'],
        [r, t.operatorToken, 403, 'FORBIDDEN'],
      ]),
    ];
    for (const [route, token, status, code] of cases) {
      const r = await (TAKER_ROUTES[route] ?? MM_ROUTES[route])!(sdkClient(base, token));
      expect({ route, status: r.status, code: r.error?.code }).toEqual({ route, status, code });
    }
    for (const [token, status, code] of [
      [undefined, 401, 'UNAUTHORIZED'],
      [user.token, 403, 'FORBIDDEN'],
      [mm, 403, 'FORBIDDEN'],
      ['not-the-operator-token', 401, 'INVALID_SESSION'],
    ] as const) {
      const r = await send(resolveMarketWindow({ client: sdkClient(base, token), path: { market_id: id }, body: { outcome: 'YES' } }));
      expect({ token, status: r.status, code: r.error?.code }).toEqual({ token, status, code });
    }
    expect((await market(id)).data?.market.status).toBe('CLOSED'); // none of them resolved it
  });
});

describe('a user and a market maker who never traded', () => {
  it('get empty lists and zero figures; an unknown position is 404 POSITION_NOT_FOUND', async () => {
    const u = await signIn();
    const client = sdkClient(base, u.token);
    const list = await send(listPositions({ client }));
    expect([list.status, list.data]).toEqual([200, { positions: [], next_cursor: null }]);
    expect((await send(listPositions({ client, query: { status: 'won', limit: 500 } }))).data).toEqual({
      positions: [],
      next_cursor: null,
    });
    const one = await send(getPosition({ client, path: { position_id: randomUUID() } }));
    expect([one.status, one.error?.code]).toEqual([404, 'POSITION_NOT_FOUND']);
    const p = await send(getPortfolio({ client }));
    expect(p.status).toBe(200);
    expect(p.data).toEqual({
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
    expect(Math.abs(p.data!.as_of_ms - Date.now())).toBeLessThan(60_000);
    expect((await send(getPnlHistory({ client, query: { from_ms: 0 } }))).data).toEqual({ events: [], next_cursor: null });

    const wallet = randomWallet();
    const mm = await mmToken(wallet);
    const mmc = sdkClient(base, mm);
    const pnl = await send(getMakerPnl({ client: mmc }));
    expect(pnl.data).toEqual({
      wallet_address: wallet.address,
      realized_pnl_micros: '0',
      trade_count: 0,
      open_liability_micros: '0',
      as_of_ms: expect.any(Number),
    });
    expect((await send(listMakerFills({ client: mmc, query: { status: 'open' } }))).data).toEqual({ fills: [], next_cursor: null });
  });

  it('a forged or edited cursor is 400 INVALID_CURSOR on every list; a bad status or limit is 400 VALIDATION_FAILED', async () => {
    const u = await signIn();
    const mm = await mmToken();
    const forged = `${Buffer.from(JSON.stringify({ t: Date.now(), i: randomUUID() })).toString('base64url')}.${randomBytes(16).toString('base64url')}`;
    // call(): one loop over three list routes, with a limit ('ten') and a status the SDK's types would not send.
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
    // call(): no wallet and a malformed one, which the SDK's required, typed query would not send.
    const none = await call(base, 'GET /v1/mm/taker_pnl', { token: mm });
    expect([none.status, none.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(none.body.details).toContainEqual(expect.objectContaining({ in: 'query', path: '/wallet' }));
    const bad = await call(base, 'GET /v1/mm/taker_pnl?wallet=0x1234', { token: mm });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const stranger = randomWallet();
    const mmc = sdkClient(base, mm);
    const r = await send(getTakerPnl({ client: mmc, query: { wallet: stranger.address.toLowerCase() } }));
    expect([r.status, r.data]).toEqual([200, { wallet_address: stranger.address, stats: null }]);
    const u = await signIn();
    const idle = await send(getTakerPnl({ client: mmc, query: { wallet: u.wallet.address } }));
    expect(idle.data).toEqual({ wallet_address: u.wallet.address, stats: null });
  });
});
