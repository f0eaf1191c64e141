// Positions to payouts through the generated client, every response checked against the spec: getMarket,
// resolveMarketWindow, the taker's listPositions / getPosition / getPortfolio / getPnlHistory and the market
// maker's getTakerPnl / getMakerPnl / listMakerFills, each documented status but 500 and 503 (pending).
// One position is filled by the RFQ rules against the service's database (src/testing/position-fill.ts), so
// the 200s carry real rows; the RFQ routes have their own contract tests.
import { randomBytes, randomUUID } from 'node:crypto';
import { MarketMakerClient } from '@contest-rfq/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeposit,
  createMarketMaker,
  createSession,
  getMakerPnl,
  getMarket,
  getPnlHistory,
  getPortfolio,
  getPosition,
  getTakerPnl,
  listMakerFills,
  listPositions,
  lookupMarket,
  resolveMarketWindow,
} from '../generated/openapi/sdk.gen.ts';
import { createOrm, type Orm } from '../src/db/orm.js';
import { createTestPrivy, randomWallet, type TestPrivy, type TestWallet } from '../src/testing/identity.js';
import { fillPosition, rfqTestDeps } from '../src/testing/position-fill.js';
import { expectErrorBody, startContractService, type ContractClient, type ContractService } from './harness.ts';

const BUFFER = 10_000;
let svc: ContractService;
let privy: TestPrivy;
let orm: Orm;
let operator: ContractClient;
const mmClients: MarketMakerClient[] = [];

// Shared by the describes: a taker with one open position on a BTC 60 s window still to come, and its maker.
let taker: { token: string; userId: string; wallet: TestWallet; api: ContractClient };
let maker: { wallet: TestWallet; token: string; api: ContractClient };
let positionId: string;
let btcWindow: number;

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('positions', {
    env: { ...privy.env, RATE_LIMIT_PER_MINUTE: '0', MARKET_BETTING_CLOSE_BUFFER_MS: String(BUFFER) },
  });
  operator = svc.client({ token: svc.operatorToken });
  orm = await createOrm({ databaseUrl: svc.db.url });

  taker = await newUser(randomWallet(), 10_000_000);
  const makerWallet = randomWallet();
  await newUser(makerWallet, 10_000_000); // the maker's collateral
  const registered = createMarketMaker({ client: operator.client, body: { wallet_address: makerWallet.address, name: 'Contract MM' } });
  await operator.run(registered, { status: 201 });
  const makerToken = await mmToken(makerWallet);
  maker = { wallet: makerWallet, token: makerToken, api: svc.client({ token: makerToken }) };

  // A BTC 60 s window that starts ten minutes from now: open for betting for the whole file, and it cannot end
  // while the file runs, so the service's resolution relay never settles the position the tests read as open.
  const anon = svc.client();
  const start = Math.floor(Date.now() / 60_000) * 60_000 + 10 * 60_000;
  const query = { asset: 'BTC', duration_secs: 60, window_start_ms: start } as const;
  const { data } = await anon.run(lookupMarket({ client: anon.client, query }), { status: 200 });
  btcWindow = data!.market.market_id;
  positionId = await fillPosition(orm, rfqTestDeps(BUFFER), { taker, maker: makerWallet, legs: [[btcWindow, 'up']] });
});

afterAll(async () => {
  await Promise.all(mmClients.map((c) => c.stop()));
  await orm?.close(true);
  if (svc) expect(await svc.stop()).toBe(0);
});

async function newUser(wallet: TestWallet, fund = 0) {
  const anon = svc.client();
  const privyToken = await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address);
  const { data } = await anon.run(createSession({ client: anon.client, body: { privy_token: privyToken } }), { status: 200 });
  const api = svc.client({ token: data!.session_token });
  if (fund)
    await api.run(createDeposit({ client: api.client, body: { amount_micros: fund, idempotency_key: randomUUID() } }), { status: 200 });
  return { token: data!.session_token, userId: data!.user_id, wallet, api };
}

async function mmToken(wallet: TestWallet): Promise<string> {
  const client = new MarketMakerClient({ url: `ws://127.0.0.1:${svc.process.port}/v1/ws`, account: wallet, reconnect: false });
  mmClients.push(client);
  return (await client.start().waitForSession()).token;
}

const FORGED = `${Buffer.from('{"t":1767225600000}').toString('base64url')}.${randomBytes(16).toString('base64url')}`;

describe('getMarket', () => {
  it('200: an open window with its end and no resolution yet; 404 MARKET_NOT_FOUND; 400 for a malformed id', async () => {
    const api = svc.client();
    const { data, checked } = await api.run(getMarket({ client: api.client, path: { market_id: btcWindow } }), { status: 200 });
    expect(data!.market).toMatchObject({
      market_id: btcWindow,
      asset: 'BTC',
      duration_secs: 60,
      status: 'OPEN',
      outcome: null,
      resolved_at_ms: null,
      resolution_rule: null,
      dispute: null,
      sources: [],
    });
    expect(data!.market.end_at_ms).toBe(data!.market.start_at_ms + 60_000);
    expect(checked.headers.get('cache-control')).toBe('no-store');
    const missing = await api.run(getMarket({ client: api.client, path: { market_id: 987_654_321 } }), {
      status: 404,
      code: 'MARKET_NOT_FOUND',
    });
    expectErrorBody(missing.checked.body);
    await svc.call('getMarket', { pathParams: { market_id: 'abc' } }, { status: 400, code: 'VALIDATION_FAILED' });
  });
});

describe('resolveMarketWindow', () => {
  // Closed ETH windows, one per test, chosen once per file: a minute rolling over between the tests cannot
  // hand the second test the window the first one resolved.
  const firstStart = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;
  const closedWindow = async (index: number) => {
    const start = firstStart - index * 60_000;
    const query = { asset: 'ETH', duration_secs: 60, window_start_ms: start } as const;
    const { data } = await operator.run(lookupMarket({ client: operator.client, query }), { status: 200 });
    return data!.market.market_id;
  };

  it('200 once betting closed, then 409 MARKET_ALREADY_RESOLVED; 409 BETTING_OPEN before; 404 MARKET_NOT_FOUND', async () => {
    const id = await closedWindow(0);
    const resolve = (marketId: number, outcome: 'YES' | 'NO' | 'VOID') =>
      resolveMarketWindow({ client: operator.client, path: { market_id: marketId }, body: { outcome } });
    const { data } = await operator.run(resolve(id, 'NO'), { status: 200 });
    expect(data!.market).toMatchObject({ market_id: id, status: 'RESOLVED', outcome: 'NO', price_source: 'operator' });
    await operator.run(resolveMarketWindow({ client: operator.client, path: { market_id: id }, body: { outcome: 'YES' } }), {
      status: 409,
      code: 'MARKET_ALREADY_RESOLVED',
    });
    const open = await operator.run(resolve(btcWindow, 'YES'), { status: 409, code: 'BETTING_OPEN' });
    expect((open.checked.body as { details: unknown }).details).toEqual({ betting_closes_at_ms: expect.any(Number) });
    await operator.run(resolveMarketWindow({ client: operator.client, path: { market_id: 987_654_321 }, body: { outcome: 'VOID' } }), {
      status: 404,
      code: 'MARKET_NOT_FOUND',
    });
  });

  it('400, 401, 403, 413, 415 before anything is resolved', async () => {
    const id = await closedWindow(1);
    const path = { market_id: id };
    await svc.call(
      'resolveMarketWindow',
      { pathParams: path, token: svc.operatorToken, body: { outcome: 'MAYBE' } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
    const anon = svc.client();
    await anon.run(resolveMarketWindow({ client: anon.client, path, body: { outcome: 'YES' } }), { status: 401, code: 'UNAUTHORIZED' });
    await taker.api.run(resolveMarketWindow({ client: taker.api.client, path, body: { outcome: 'YES' } }), {
      status: 403,
      code: 'FORBIDDEN',
    });
    await maker.api.run(resolveMarketWindow({ client: maker.api.client, path, body: { outcome: 'YES' } }), {
      status: 403,
      code: 'FORBIDDEN',
    });
    await svc.call(
      'resolveMarketWindow',
      {
        pathParams: path,
        token: svc.operatorToken,
        rawBody: JSON.stringify({ outcome: 'YES', pad: 'a'.repeat(70_000) }),
        contentType: 'application/json',
      },
      { status: 413, code: 'PAYLOAD_TOO_LARGE' },
    );
    await svc.call(
      'resolveMarketWindow',
      { pathParams: path, token: svc.operatorToken, rawBody: '{"outcome":"YES"}', contentType: 'text/plain' },
      { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    );
    const { data } = await operator.run(getMarket({ client: operator.client, path }), { status: 200 });
    expect(data!.market.status).toBe('CLOSED');
  });
});

describe('the taker routes', () => {
  it('listPositions 200 (a page with the position), 400 INVALID_CURSOR and VALIDATION_FAILED', async () => {
    const { data } = await taker.api.run(listPositions({ client: taker.api.client, query: { status: 'open', limit: 10 } }), {
      status: 200,
    });
    expect(data!.positions.map((p) => p.position_id)).toEqual([positionId]);
    expect(data!.next_cursor).toBeNull();
    await taker.api.run(listPositions({ client: taker.api.client, query: { cursor: FORGED } }), { status: 400, code: 'INVALID_CURSOR' });
    await svc.call('listPositions', { token: taker.token, query: { status: 'pending' } }, { status: 400, code: 'VALIDATION_FAILED' });
  });

  it('getPosition 200 with its legs; 404 POSITION_NOT_FOUND for another user; 400 for a malformed id', async () => {
    const { data } = await taker.api.run(getPosition({ client: taker.api.client, path: { position_id: positionId } }), { status: 200 });
    expect(data).toMatchObject({
      position_id: positionId,
      role: 'taker',
      status: 'open',
      stake_micros: '1000000',
      payout_micros: '2000000',
      pnl_micros: null,
    });
    expect(data!.legs).toEqual([expect.objectContaining({ leg_index: 0, market_id: btcWindow, direction: 'up', outcome: 'pending' })]);
    const other = await newUser(randomWallet());
    await other.api.run(getPosition({ client: other.api.client, path: { position_id: positionId } }), {
      status: 404,
      code: 'POSITION_NOT_FOUND',
    });
    await svc.call(
      'getPosition',
      { token: taker.token, pathParams: { position_id: 'not-a-uuid' } },
      { status: 400, code: 'VALIDATION_FAILED' },
    );
  });

  it('getPortfolio 200 with the open position; getPnlHistory 200 (nothing settled), 400 INVALID_CURSOR', async () => {
    const { data } = await taker.api.run(getPortfolio({ client: taker.api.client }), { status: 200 });
    expect(data).toMatchObject({
      open_positions: 1,
      open_stake_micros: '1000000',
      potential_payout_micros: '2000000',
      settled_positions: 0,
    });
    const pnl = await taker.api.run(getPnlHistory({ client: taker.api.client, query: { from_ms: 0, limit: 5 } }), { status: 200 });
    expect(pnl.data).toEqual({ events: [], next_cursor: null });
    await taker.api.run(getPnlHistory({ client: taker.api.client, query: { cursor: FORGED } }), { status: 400, code: 'INVALID_CURSOR' });
  });

  it('401 without a token, 403 with a market-maker token, on each taker route', async () => {
    const anon = svc.client();
    for (const api of [anon, maker.api]) {
      const expected = api === anon ? { status: 401, code: 'UNAUTHORIZED' } : { status: 403, code: 'FORBIDDEN' };
      await api.run(listPositions({ client: api.client }), expected);
      await api.run(getPosition({ client: api.client, path: { position_id: positionId } }), expected);
      await api.run(getPortfolio({ client: api.client }), expected);
      await api.run(getPnlHistory({ client: api.client }), expected);
    }
  });
});

describe('the market-maker routes', () => {
  it("getTakerPnl 200 with the taker's stats and with null stats; 400 without a wallet", async () => {
    const { data } = await maker.api.run(getTakerPnl({ client: maker.api.client, query: { wallet: taker.wallet.address.toLowerCase() } }), {
      status: 200,
    });
    expect(data).toEqual({
      wallet_address: taker.wallet.address,
      stats: { total_pnl_micros: '0', total_positions: 1, open_positions: 1, wins: 0, losses: 0 },
    });
    const stranger = randomWallet().address;
    const none = await maker.api.run(getTakerPnl({ client: maker.api.client, query: { wallet: stranger } }), { status: 200 });
    expect(none.data).toEqual({ wallet_address: stranger, stats: null });
    await svc.call('getTakerPnl', { token: maker.token }, { status: 400, code: 'VALIDATION_FAILED' });
  });

  it('getMakerPnl 200 with the open liability; listMakerFills 200 with the fill, 400 INVALID_CURSOR', async () => {
    const { data } = await maker.api.run(getMakerPnl({ client: maker.api.client }), { status: 200 });
    expect(data).toEqual({
      wallet_address: maker.wallet.address,
      realized_pnl_micros: '0',
      trade_count: 0,
      open_liability_micros: '1000000',
      as_of_ms: expect.any(Number),
    });
    const fills = await maker.api.run(listMakerFills({ client: maker.api.client, query: { status: 'open' } }), { status: 200 });
    expect(fills.data!.fills).toEqual([
      expect.objectContaining({
        position_id: positionId,
        stake_micros: '1000000',
        odds_bps: 20_000,
        liability_micros: '1000000',
        maker_pnl_micros: null,
      }),
    ]);
    await maker.api.run(listMakerFills({ client: maker.api.client, query: { cursor: FORGED } }), { status: 400, code: 'INVALID_CURSOR' });
  });

  it('401 without a token, 403 with a user token, on each market-maker route', async () => {
    const anon = svc.client();
    for (const api of [anon, taker.api]) {
      const expected = api === anon ? { status: 401, code: 'UNAUTHORIZED' } : { status: 403, code: 'FORBIDDEN' };
      await api.run(getTakerPnl({ client: api.client, query: { wallet: taker.wallet.address } }), expected);
      await api.run(getMakerPnl({ client: api.client }), expected);
      await api.run(listMakerFills({ client: api.client }), expected);
    }
  });
});
