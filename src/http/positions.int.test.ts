// Positions to payouts over HTTP against the real service (src/testing/positions-service.ts): one trade on
// 8-second windows taken from open to paid: the operator resolves one window, the demo feed the other exactly
// as the formula published in the spec predicts (recomputed here from the spec's text), and every read agrees
// with the ledger. The fills are made by the RFQ rules in this process against the service's database (the
// RFQ HTTP and WebSocket routes are tested elsewhere); everything read is read over HTTP. getMarket, the
// window resolution's 409s and 404s, the auth matrix and the empty answers: positions-access.int.test.ts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Direction } from '../domain/rfq/typed-data.js';
import {
  getMakerPnl,
  getPnlHistory,
  getPortfolio,
  getPosition,
  getTakerPnl,
  listMakerFills,
  listPositions,
} from '../../generated/openapi/sdk.gen.js';
import { randomWallet, type TestWallet } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { ledgerProblems } from '../testing/money.js';
import { fillPosition, rfqTestDeps } from '../testing/position-fill.js';
import {
  base,
  BUFFER,
  DURATION,
  market,
  mmToken,
  orm,
  resolve,
  SEED,
  signIn,
  t,
  until,
  usePositionsService,
  windowOf,
} from '../testing/positions-service.js';

usePositionsService('positions');

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
    const tk = sdkClient(base, taker.token);
    const mmc = sdkClient(base, mm);

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
    const open = await send(listPositions({ client: tk }));
    expect(open.status).toBe(200);
    expect(open.data?.positions.map((p) => p.position_id)).toEqual([parlay, ethDown, single]);
    const p3 = await send(getPosition({ client: tk, path: { position_id: parlay } }));
    expect(p3.data).toEqual({
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
    expect(open.data?.positions[0]).toEqual(p3.data);
    const other = await signIn();
    expect((await send(getPosition({ client: sdkClient(base, other.token), path: { position_id: parlay } }))).error?.code).toBe(
      'POSITION_NOT_FOUND',
    );
    expect((await send(getPortfolio({ client: tk }))).data).toMatchObject({
      open_positions: 3,
      open_stake_micros: '3000000',
      potential_payout_micros: '6000000',
      settled_positions: 0,
    });
    expect((await send(getTakerPnl({ client: mmc, query: { wallet: taker.wallet.address.toLowerCase() } }))).data).toEqual({
      wallet_address: taker.wallet.address,
      stats: { total_pnl_micros: '0', total_positions: 3, open_positions: 3, wins: 0, losses: 0 },
    });
    expect((await send(getMakerPnl({ client: mmc }))).data).toMatchObject({ trade_count: 0, open_liability_micros: '3000000' });

    // Pages of 2 and 1; the cursor is bound to its filter.
    const page1 = await send(listPositions({ client: tk, query: { limit: 2 } }));
    const cursor = page1.data!.next_cursor!;
    expect(page1.data?.positions).toHaveLength(2);
    const page2 = await send(listPositions({ client: tk, query: { limit: 2, cursor } }));
    expect([page2.data?.positions.map((p) => p.position_id), page2.data?.next_cursor]).toEqual([[single], null]);
    expect((await send(listPositions({ client: tk, query: { status: 'open', cursor } }))).error?.code).toBe('INVALID_CURSOR');
    const fills1 = await send(listMakerFills({ client: mmc, query: { limit: 1 } }));
    expect(fills1.data?.fills[0]).toMatchObject({
      position_id: parlay,
      stake_micros: '1000000',
      odds_bps: 20_000,
      liability_micros: '1000000',
      status: 'open',
      maker_pnl_micros: null,
    });
    expect((await send(listMakerFills({ client: mmc, query: { cursor: fills1.data!.next_cursor! } }))).data?.fills).toHaveLength(2);

    // The operator resolves ETH YES once betting has closed: ETH down is lost at once, the parlay waits for BTC.
    expect((await resolve(eth, 'YES')).error?.code).toBe('BETTING_OPEN');
    await until(end - BUFFER);
    const resolved = await resolve(eth, 'YES');
    expect(resolved.status).toBe(200);
    expect(resolved.data?.market).toMatchObject({ market_id: eth, status: 'RESOLVED', outcome: 'YES', price_source: 'operator' });
    const status = async (id: string) => (await send(getPosition({ client: tk, path: { position_id: id } }))).data!;
    await expect.poll(async () => (await status(ethDown)).status, { timeout: 30_000, interval: 250 }).toBe('lost');
    expect(await status(ethDown)).toMatchObject({ pnl_micros: '-1000000', legs: [expect.objectContaining({ outcome: 'lost' })] });
    expect((await status(parlay)).legs.map((l) => l.outcome)).toEqual(['pending', 'won']);

    // The feed resolves BTC after its end as the published formula predicts.
    await expect.poll(async () => (await market(btc)).data?.market.status, { timeout: 30_000, interval: 250 }).toBe('RESOLVED');
    const open$ = publishedDemoPrice('BTC', start);
    const close$ = publishedDemoPrice('BTC', end);
    const up = close$ > open$;
    expect((await market(btc)).data?.market).toMatchObject({
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
    const portfolio = await send(getPortfolio({ client: tk }));
    expect(portfolio.data).toMatchObject({
      open_positions: 0,
      open_stake_micros: '0',
      potential_payout_micros: '0',
      settled_positions: 3,
      wins,
      losses: 3 - wins,
      voided: 0,
      realized_pnl_micros: String(total),
    });
    const history = await send(getPnlHistory({ client: tk }));
    const events = history.data!.events;
    expect(history.data?.next_cursor).toBeNull();
    expect(events.map((e) => e.position_id)[0]).toBe(ethDown);
    expect(events.map((e) => e.cumulative_micros).at(-1)).toBe(String(total));
    expect(new Set(events.map((e) => e.position_id))).toEqual(new Set([single, ethDown, parlay]));
    const later = events[1]!.resolved_at_ms;
    const sinceLater = await send(getPnlHistory({ client: tk, query: { from_ms: later } }));
    expect(sinceLater.data?.events.at(-1)?.cumulative_micros).toBe(String(total)); // running total since the first ever
    expect((await send(getTakerPnl({ client: mmc, query: { wallet: taker.wallet.address } }))).data?.stats).toEqual({
      total_pnl_micros: String(total),
      total_positions: 3,
      open_positions: 0,
      wins,
      losses: 3 - wins,
    });
    expect((await send(getMakerPnl({ client: mmc }))).data).toMatchObject({
      wallet_address: makerWallet.address,
      realized_pnl_micros: String(-total),
      trade_count: 3,
      open_liability_micros: '0',
    });
    const lostFills = await send(listMakerFills({ client: mmc, query: { status: 'lost' } }));
    expect(lostFills.data?.fills.map((f) => f.position_id)).toContain(ethDown);
    expect(lostFills.data?.fills.find((f) => f.position_id === ethDown)?.maker_pnl_micros).toBe('1000000');
    expect(await ledgerProblems(t.sql)).toEqual([]);
  });
});
