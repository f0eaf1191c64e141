// Medium tier: window resolution and settlement on real PostgreSQL, with positions made by the RFQ rules:
// single legs won/lost, a two-leg parlay (lost at its first lost leg; won after both), VOID refunds, the
// operator's override and its 409s, the demo feed's predictable outcome, batches, re-runs that change
// nothing, PnL summing to zero per position, and the reads (positions, portfolio, PnL history, maker).
import { randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { rfqTestDeps } from '../../testing/position-fill.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { checkLedger, userBalances } from '../ledger/ledger.js';
import { ensureWindows } from '../markets/markets.js';
import { getWindowState, resolveWindowByOperator, windowsAwaitingResolution } from '../markets/window-resolution.js';
import { resolveWindowFromFeed } from '../markets/window-feed.js';
import { createQuorumFeed } from '../prices/read.js';
import { createDemoFeed, demoPriceMicros } from '../prices/demo.js';
import { windowOutcome } from '../prices/feed.js';
import { closeRfq, createRfq, submitQuote } from '../rfq/api.js';
import type { RfqDeps } from '../rfq/deps.js';
import { RFQ_EIP712_SALT_DEV } from '../../constants.js';
import { orderTypedData, quoteTypedData, rfqDomain, type Direction } from '../rfq/typed-data.js';
import { getPortfolio, getPosition, listMakerFills, listPositions, makerFigures, pnlHistory, takerStatsByWallet } from './portfolio.js';
import { settleWindow } from './settle.js';
import { fundedUser } from '../../testing/funding.js';
import { inTransaction } from '../../db/unit-of-work.js';

const TAKER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const MM = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const BUFFER = 10_000;
const W = 300_000;
const T0 = Math.floor(Date.now() / W) * W + 2 * W;

let t: MigratedOrm;
let clock = T0 + 1000;
const deps: RfqDeps = { ...rfqTestDeps(BUFFER, 500, { maxOpenPerUser: 1000 }), now: () => clock };
const domain = rfqDomain('contest-rfq-service', 8453, RFQ_EIP712_SALT_DEV);
const em = () => t.orm.em.fork();
let taker: string;
let maker: string;
let btc: number;
let eth: number;
let nonce = 0;

const user = (address: string, funds: bigint) => fundedUser(em, address, funds);

/** A filled position: stake 1 USDC at 2.0 odds from the one maker. */
async function position(legs: Array<[number, Direction]>, stake = 1_000_000, odds = 20_000): Promise<string> {
  const order = {
    taker: TAKER.address,
    legs: legs.map(([market_id, direction]) => ({ market_id, direction })),
    stake_micros: stake,
    min_odds_bps: 10_001,
    order_type: 'FOK' as const,
    nonce: ++nonce,
    deadline_ms: clock + 30_000,
  };
  const signature = await TAKER.signTypedData(orderTypedData(domain, order));
  const r = await inTransaction(em(), (tx) =>
    createRfq(tx, deps, { userId: taker, sessionAddress: TAKER.address, order, signature, fillMode: 'best', idempotencyKey: randomUUID() }),
  );
  const q = { rfq_id: r.rfq.rfq.id, maker: MM.address, odds_bps: odds, max_fill_micros: stake, valid_until_ms: clock + 10_000 };
  const ack = await submitQuote(em(), deps, MM.address, { ...q, signature: await MM.signTypedData(quoteTypedData(domain, q)) });
  expect(ack.ack.accepted).toBe(true);
  const saved = clock;
  clock += 500;
  const closed = await closeRfq(em(), deps, r.rfq.rfq.id);
  clock = saved;
  expect(closed.rfq.rfq.status).toBe('filled');
  return closed.rfq.rfq.positionId!;
}

beforeAll(async () => {
  t = await migratedOrm('settle');
  taker = await user(TAKER.address, 1_000_000_000n);
  maker = await user(MM.address, 1_000_000_000n);
  await ensureWindows(em(), [
    { asset: 'BTC', durationSecs: 300, startAtMs: T0 },
    { asset: 'ETH', durationSecs: 300, startAtMs: T0 + W },
  ]);
  const rows = await db(em()).selectFrom('markets').select(['market_id', 'asset']).where('kind', '=', 'rfq_window').execute();
  btc = Number(rows.find((r) => r.asset === 'BTC')!.market_id);
  eth = Number(rows.find((r) => r.asset === 'ETH')!.market_id);
});
afterAll(async () => t?.close());

const settle = (marketId: number, outcome: 'YES' | 'NO' | 'VOID', batchSize?: number) =>
  settleWindow(em(), marketId, outcome, clock, { batchSize });

describe('window resolution and settlement', () => {
  it('settles single legs and parlays exactly, keeps PnL zero-sum, and changes nothing on a re-run', async () => {
    const upWins = await position([[btc, 'up']]);
    const downLoses = await position([[btc, 'down']]);
    const parlayLost = await position([
      [btc, 'down'],
      [eth, 'up'],
    ]);
    const parlayWon = await position([
      [btc, 'up'],
      [eth, 'up'],
    ]);
    const before = { taker: await userBalances(em(), taker), maker: await userBalances(em(), maker) };

    await expect(resolveWindowByOperator(em(), btc, 'YES', BUFFER, clock)).rejects.toMatchObject({ code: 'BETTING_OPEN', status: 409 });
    clock = T0 + W; // BTC window ended
    const state = await resolveWindowByOperator(em(), btc, 'YES', BUFFER, clock);
    expect(state).toMatchObject({ status: 'RESOLVED', outcome: 'YES', resolvedBy: 'operator', endAtMs: T0 + W });
    await expect(resolveWindowByOperator(em(), btc, 'NO', BUFFER, clock)).rejects.toMatchObject({ code: 'MARKET_ALREADY_RESOLVED' });

    const first = await settle(btc, 'YES', 2);
    expect(first).toMatchObject({ settled: 3, touched: 4, batches: 2 }); // parlayWon stays open (ETH pending)
    expect(await settle(btc, 'YES')).toMatchObject({ settled: 0, batches: 0 });

    expect(await getPosition(em(), taker, upWins)).toMatchObject({ status: 'won', pnlMicros: 1_000_000n });
    expect(await getPosition(em(), taker, downLoses)).toMatchObject({ status: 'lost', pnlMicros: -1_000_000n });
    const pl = await getPosition(em(), taker, parlayLost);
    expect(pl).toMatchObject({ status: 'lost', pnlMicros: -1_000_000n });
    expect(pl.legs.map((l) => l.outcome)).toEqual(['lost', 'pending']);
    expect(await getPosition(em(), taker, parlayWon)).toMatchObject({ status: 'open', pnlMicros: null });

    clock = T0 + 2 * W; // ETH ended
    expect(await settle(eth, 'YES')).toMatchObject({ settled: 1, touched: 2 });
    const pw = await getPosition(em(), taker, parlayWon);
    expect(pw).toMatchObject({ status: 'won', pnlMicros: 1_000_000n }); // the parlay was quoted at 2.0 too: payout 2 for 1
    expect((await getPosition(em(), taker, parlayLost)).legs.map((l) => l.outcome)).toEqual(['lost', 'won']);

    const after = { taker: await userBalances(em(), taker), maker: await userBalances(em(), maker) };
    // Taker: won upWins and parlayWon (payout 2 each), lost two stakes; all four had been reserved.
    const takerPnl = [upWins, downLoses, parlayLost, parlayWon];
    let sumTaker = 0n;
    for (const id of takerPnl) sumTaker += (await getPosition(em(), taker, id)).pnlMicros!;
    const fills = await listMakerFills(em(), MM.address, { limit: 100 });
    const sumMaker = fills.fills.filter((f) => takerPnl.includes(f.positionId)).reduce((s, f) => s + f.makerPnlMicros!, 0n);
    expect(sumTaker + sumMaker).toBe(0n);
    expect(after.taker.reserved).toBe(before.taker.reserved - 4_000_000n);
    expect(after.taker.available - before.taker.available).toBe(sumTaker + 4_000_000n);
    expect(after.maker.available + after.maker.reserved - (before.maker.available + before.maker.reserved)).toBe(sumMaker);
    expect(await checkLedger(em())).toEqual([]);

    const portfolio = await getPortfolio(em(), taker);
    expect(portfolio).toMatchObject({ openPositions: 0, settledPositions: 4, wins: 2, losses: 2, realizedPnlMicros: sumTaker });
    expect(await makerFigures(em(), MM.address)).toMatchObject({ settledPositions: 4, realizedPnlMicros: sumMaker, openStakeMicros: 0n });
    expect(await takerStatsByWallet(em(), TAKER.address.toLowerCase())).toMatchObject({
      walletAddress: TAKER.address,
      stats: { wins: 2, losses: 2 },
    });
    expect(await takerStatsByWallet(em(), '0x000000000000000000000000000000000000dead')).toMatchObject({ stats: null });

    const history = await pnlHistory(em(), taker, { limit: 3 });
    const rest = await pnlHistory(em(), taker, { limit: 3, cursor: history.nextCursor! });
    const all = [...history.events, ...rest.events];
    expect(all).toHaveLength(4);
    expect(all.at(-1)!.cumulativeMicros).toBe(sumTaker);
    await expect(pnlHistory(em(), taker, { limit: 3, fromMs: 1, cursor: history.nextCursor! })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
  });

  it('voids and refunds, and resolves from the demo feed as its published formula predicts', async () => {
    clock = T0 + 2 * W + 1000;
    await ensureWindows(em(), [
      { asset: 'SOL', durationSecs: 300, startAtMs: T0 + 2 * W },
      { asset: 'XRP', durationSecs: 300, startAtMs: T0 + 2 * W },
    ]);
    const rows = await db(em()).selectFrom('markets').select(['market_id', 'asset']).where('kind', '=', 'rfq_window').execute();
    const sol = Number(rows.find((r) => r.asset === 'SOL')!.market_id);
    const xrp = Number(rows.find((r) => r.asset === 'XRP')!.market_id);
    const voided = await position([[sol, 'up']], 2_000_000, 25_000);
    const fed = await position([[xrp, 'down']]);
    const before = { taker: await userBalances(em(), taker), maker: await userBalances(em(), maker) };
    const feed = createQuorumFeed([createDemoFeed({ seed: 'seed', spreadBps: 50, now: () => clock })], 1, 60_000);

    expect(await resolveWindowFromFeed(em(), feed, xrp, { nowMs: clock, maxWaitMs: 3_600_000, disputeVoidAfterMs: 0 })).toEqual({
      kind: 'not_ended',
    });
    clock = T0 + 3 * W + 5;
    const expected = windowOutcome(demoPriceMicros('seed', 'XRP', T0 + 2 * W, 50)!, demoPriceMicros('seed', 'XRP', T0 + 3 * W, 50)!);
    expect(await resolveWindowFromFeed(em(), feed, xrp, { nowMs: clock, maxWaitMs: 3_600_000, disputeVoidAfterMs: 0 })).toEqual({
      kind: 'resolved',
      outcome: expected,
      recorded: true,
    });
    expect(await resolveWindowFromFeed(em(), feed, xrp, { nowMs: clock, maxWaitMs: 3_600_000, disputeVoidAfterMs: 0 })).toEqual({
      kind: 'resolved',
      outcome: expected,
      recorded: false,
    });
    await settle(xrp, expected);
    expect((await getPosition(em(), taker, fed)).status).toBe(expected === 'NO' ? 'won' : 'lost');
    expect((await getWindowState(em(), xrp, BUFFER, clock)).openPriceMicros).toBe(demoPriceMicros('seed', 'XRP', T0 + 2 * W, 50));

    const noPrices = createQuorumFeed([{ source: 'none', priceAt: async () => null }], 1, 60_000);
    expect(await resolveWindowFromFeed(em(), noPrices, sol, { nowMs: clock, maxWaitMs: 3_600_000, disputeVoidAfterMs: 0 })).toEqual({
      kind: 'waiting_for_price',
    });
    // No price by the max wait: DISPUTED; the relay leaves it to the operator until its deadline, then it voids.
    const late = clock + 3_600_000;
    const noneBy = { maxWaitMs: 3_600_000, disputeVoidAfterMs: 60_000 };
    expect(await resolveWindowFromFeed(em(), noPrices, sol, { nowMs: late, ...noneBy })).toMatchObject({
      kind: 'disputed',
      reason: 'too_few_readings',
    });
    expect(await windowsAwaitingResolution(em(), late + 59_999, 0)).not.toContain(sol);
    expect(await windowsAwaitingResolution(em(), late + 60_000, 0)).toContain(sol);
    expect(await resolveWindowFromFeed(em(), noPrices, sol, { nowMs: late + 60_000, ...noneBy })).toMatchObject({ outcome: 'VOID' });
    await settle(sol, 'VOID');
    expect(await getPosition(em(), taker, voided)).toMatchObject({ status: 'voided', pnlMicros: 0n });
    expect((await getWindowState(em(), sol, BUFFER, clock)).status).toBe('VOIDED');
    const after = { taker: await userBalances(em(), taker), maker: await userBalances(em(), maker) };
    expect(after.taker.reserved).toBe(before.taker.reserved - 3_000_000n);
    expect(await checkLedger(em())).toEqual([]);

    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await listPositions(em(), taker, { limit: 2, cursor });
      page.positions.forEach((p) => seen.add(p.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.size).toBe(6);
    expect((await listPositions(em(), taker, { limit: 50, status: 'voided' })).positions.map((p) => p.id)).toEqual([voided]);
    await expect(getPosition(em(), maker, voided)).rejects.toMatchObject({ code: 'POSITION_NOT_FOUND' });
  });
});
