// RFQ trading over HTTP against the real service (src/testing/rfq-service.ts): a taker posts signed orders,
// market makers quote over the WebSocket, the service fills, expires or cancels in best and manual mode;
// balances move as docs/trading.md ("The ledger") says and the ledger check holds after every scenario.
// Bad input: rfq-bad-input.int.test.ts; idempotency, concurrency and listing: rfq-listing.int.test.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getMakerRfq } from '../../generated/openapi/sdk.gen.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { balances, buildOrder, postOrder } from '../testing/rfq-trade.js';
import {
  accept,
  cancel,
  domain,
  expectError,
  get,
  legs,
  maker,
  market,
  market2,
  svc,
  taker,
  USDC,
  useRfqService,
} from '../testing/rfq-service.js';

useRfqService('rfqhttp');

describe('best mode', () => {
  it('fills from the best quotes at the end of the window; stake and liabilities are reserved exactly', async () => {
    const a = await maker();
    const b = await maker();
    const tk = await taker();
    // A quotes better odds with a small size, B covers the rest: FOK fills across both, best first.
    a.autoQuote(() => ({ odds_bps: 21_000, max_fill_micros: 600_000 }));
    b.autoQuote(() => ({ odds_bps: 20_000, max_fill_micros: 5 * USDC }));
    const order = buildOrder(tk.wallet.address, legs(market, market2), { stake_micros: 2 * USDC, min_odds_bps: 15_000, order_type: 'FOK' });
    const res = await postOrder(svc.baseUrl, tk, domain, order);
    expect(res.status).toBe(201);
    const id = res.body.rfq_id;
    expect(res.headers.get('location')).toBe(`/v1/rfq/${id}`);
    // payouts: 600000 x 2.1 = 1260000, 1400000 x 2.0 = 2800000; liabilities 660000 and 1400000
    expect(res.body).toMatchObject({
      status: 'filled',
      fill_mode: 'best',
      taker_address: tk.wallet.address,
      stake_micros: '2000000',
      filled_stake_micros: '2000000',
      payout_micros: '4060000',
      odds_bps: 20_300,
      quotes_received: 2,
      close_reason: null,
      order: { ...order, taker: tk.wallet.address },
    });
    expect(res.body.position_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.quotes.map((q: { odds_bps: number; status: string }) => [q.odds_bps, q.status])).toEqual([
      [21_000, 'filled'],
      [20_000, 'filled'],
    ]);
    expect(JSON.stringify(res.body)).not.toContain(a.wallet.address.slice(2).toLowerCase()); // makers stay anonymous
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(8 * USDC), reserved: String(2 * USDC) });
    expect(await balances(svc.baseUrl, a.party.token)).toEqual({ available: String(100 * USDC - 660_000), reserved: '660000' });
    expect(await balances(svc.baseUrl, b.party.token)).toEqual({ available: String(100 * USDC - 1_400_000), reserved: '1400000' });
    // each maker is told its own fill, and reconciles it over HTTP with its own quote only
    const resultA = await a.next('quote_result', (f) => f.rfq_id === id);
    expect(resultA).toMatchObject({
      status: 'filled',
      fill_stake_micros: '600000',
      liability_micros: '660000',
      position_id: res.body.position_id,
    });
    const mine = await send(getMakerRfq({ client: sdkClient(svc.baseUrl, a.token), path: { rfq_id: id } }));
    expect(mine.status).toBe(200);
    expect(mine.data).toMatchObject({ rfq_id: id, status: 'filled', closed_at_ms: res.body.closed_at_ms });
    expect(mine.data?.quotes).toEqual([
      expect.objectContaining({ odds_bps: 21_000, status: 'filled', filled_stake_micros: '600000', reason: null }),
    ]);
    // the taker reads the same RFQ back
    const again = await get(tk, id);
    expect(again.status).toBe(200);
    expect(again.data).toEqual(res.body);
  });

  it('IOC fills what the quotes cover and releases the rest', async () => {
    const m = await maker();
    const tk = await taker();
    m.autoQuote(() => ({ odds_bps: 20_000, max_fill_micros: 700_000 }));
    const res = await postOrder(
      svc.baseUrl,
      tk,
      domain,
      buildOrder(tk.wallet.address, legs(market), { stake_micros: 2 * USDC, order_type: 'IOC' }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'filled', filled_stake_micros: '700000', payout_micros: '1400000', odds_bps: 20_000 });
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(10 * USDC - 700_000), reserved: '700000' });
    expect(await balances(svc.baseUrl, m.party.token)).toEqual({ available: String(100 * USDC - 700_000), reserved: '700000' });
  });

  it('FOK with too little liquidity expires insufficient_liquidity and releases the whole stake', async () => {
    const m = await maker();
    const tk = await taker();
    m.autoQuote(() => ({ odds_bps: 20_000, max_fill_micros: 500_000 }));
    const res = await postOrder(
      svc.baseUrl,
      tk,
      domain,
      buildOrder(tk.wallet.address, legs(market), { stake_micros: 2 * USDC, order_type: 'FOK' }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'expired',
      close_reason: 'insufficient_liquidity',
      filled_stake_micros: '0',
      payout_micros: null,
      odds_bps: null,
      position_id: null,
    });
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(10 * USDC), reserved: '0' });
    expect(await balances(svc.baseUrl, m.party.token)).toEqual({ available: String(100 * USDC), reserved: '0' });
  });

  it('no quote expires no_quotes; quotes under min_odds_bps expire below_min_odds', async () => {
    const m = await maker();
    const tk = await taker();
    const none = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)));
    expect(none.body).toMatchObject({ status: 'expired', close_reason: 'no_quotes', quotes: [] });
    m.autoQuote(() => ({ odds_bps: 12_000, max_fill_micros: 5 * USDC }));
    const low = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { min_odds_bps: 15_000 }));
    expect(low.body).toMatchObject({ status: 'expired', close_reason: 'below_min_odds', quotes_received: 1 });
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(10 * USDC), reserved: '0' });
  });
});

describe('manual mode', () => {
  it('answers open; a long-poll wakes on a quote; accept fills it, replays, and refuses a second fill', async () => {
    const m = await maker();
    const tk = await taker();
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { stake_micros: USDC }), {
      fillMode: 'manual',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'open', fill_mode: 'manual', quotes: [], closed_at_ms: null, quotes_received: 0 });
    const id = res.body.rfq_id;
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(9 * USDC), reserved: String(USDC) });

    const frame = await m.next('rfq', (f) => f.rfq_id === id);
    expect(frame).not.toHaveProperty('min_odds_bps');
    const poll = get(tk, id, 10_000);
    await new Promise((r) => setTimeout(r, 300)); // let the long-poll start waiting before the quote lands
    const ack = await m.quote(id, { odds_bps: 25_000, max_fill_micros: 2 * USDC });
    expect(ack).toMatchObject({ accepted: true, error: null });
    const woke = await poll;
    expect(woke.status).toBe(200);
    expect(woke.data).toMatchObject({ status: 'open', quotes_received: 1 });
    expect(woke.data?.quotes).toEqual([
      { quote_id: ack.quote_id, odds_bps: 25_000, max_fill_micros: String(2 * USDC), valid_until_ms: expect.any(Number), status: 'live' },
    ]);

    const key = randomUUID();
    const filled = await accept(tk, id, ack.quote_id, key);
    expect(filled.status).toBe(200);
    expect(filled.data).toMatchObject({ status: 'filled', filled_stake_micros: String(USDC), payout_micros: '2500000', odds_bps: 25_000 });
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(9 * USDC), reserved: String(USDC) });
    expect(await balances(svc.baseUrl, m.party.token)).toEqual({ available: String(100 * USDC - 1_500_000), reserved: '1500000' });
    expect(await m.next('quote_result', (f) => f.rfq_id === id)).toMatchObject({ status: 'filled', liability_micros: '1500000' });

    const replay = await accept(tk, id, ack.quote_id, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(filled.data);
    expectError(await accept(tk, id, ack.quote_id), 409, 'RFQ_NOT_OPEN');
    expectError(await cancel(tk, id), 409, 'RFQ_NOT_OPEN');
    // the same key on another RFQ is a different request
    const other = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' });
    expectError(await accept(tk, other.body.rfq_id, ack.quote_id, key), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect((await cancel(tk, other.body.rfq_id)).status).toBe(200);
  });

  it('accept refuses an unknown quote, odds below the minimum and a FOK the quote cannot fill', async () => {
    const m = await maker();
    const tk = await taker();
    const res = await postOrder(
      svc.baseUrl,
      tk,
      domain,
      buildOrder(tk.wallet.address, legs(market), { stake_micros: 2 * USDC, min_odds_bps: 20_000 }),
      {
        fillMode: 'manual',
      },
    );
    const id = res.body.rfq_id;
    await m.next('rfq', (f) => f.rfq_id === id);
    expectError(await accept(tk, id, randomUUID()), 404, 'QUOTE_NOT_FOUND');
    const low = await m.quote(id, { odds_bps: 15_000, max_fill_micros: 5 * USDC });
    expectError(await accept(tk, id, low.quote_id), 422, 'ODDS_BELOW_MINIMUM');
    const small = await m.quote(id, { odds_bps: 25_000, max_fill_micros: USDC }); // replaces the low quote
    expectError(await accept(tk, id, low.quote_id), 409, 'QUOTE_NOT_LIVE');
    expectError(await accept(tk, id, small.quote_id), 422, 'INSUFFICIENT_LIQUIDITY');
    expect((await get(tk, id)).data?.status).toBe('open');
    expect((await cancel(tk, id)).status).toBe(200);
  });

  it('a long-poll also wakes when the RFQ closes (cancel)', async () => {
    const tk = await taker();
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' });
    const poll = get(tk, res.body.rfq_id, 10_000);
    await new Promise((r) => setTimeout(r, 300)); // let the long-poll start waiting before the cancel lands
    expect((await cancel(tk, res.body.rfq_id)).status).toBe(200);
    expect((await poll).data).toMatchObject({ status: 'cancelled', close_reason: 'cancelled' });
  });

  it('cancel releases the stake; a repeat answers the same cancelled RFQ', async () => {
    const tk = await taker();
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { stake_micros: 3 * USDC }), {
      fillMode: 'manual',
    });
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(7 * USDC), reserved: String(3 * USDC) });
    const first = await cancel(tk, res.body.rfq_id);
    expect(first.status).toBe(200);
    expect(first.data).toMatchObject({ status: 'cancelled', close_reason: 'cancelled', filled_stake_micros: '0' });
    expect(first.data?.closed_at_ms).toEqual(expect.any(Number));
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(10 * USDC), reserved: '0' });
    const repeat = await cancel(tk, res.body.rfq_id);
    expect(repeat.status).toBe(200);
    expect(repeat.data).toEqual(first.data);
    const stranger = await taker(0);
    expectError(await cancel(stranger, res.body.rfq_id), 404, 'RFQ_NOT_FOUND');
  });
});
