// RFQ trading over HTTP against the real service (PostgreSQL + Redis, API and workers in one process):
// a taker posts signed orders, market makers quote over the WebSocket, the service fills, expires or
// cancels; balances move as docs/trading.md ("The ledger") says and the ledger check holds after every scenario.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RfqDomain } from '../domain/rfq/typed-data.js';
import { call, randomWallet, type TestPrivy } from '../testing/identity.js';
import { ledgerProblems } from '../testing/money.js';
import {
  balances,
  buildOrder,
  currentMarketId,
  fetchDomain,
  newTaker,
  postOrder,
  readyMaker,
  signOrder,
  type MakerConnection,
  type Party,
} from '../testing/rfq-trade.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { startTestService, type TestService } from '../testing/test-service.js';

const SIWE_DOMAIN = 'rfq.test';
// A wider quote window than the default 500 ms: makers on a loaded 2-core test machine still answer in time.
const QUOTE_WINDOW_MS = 2000;
const USDC = 1_000_000;

let t: TestService;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;
let domain: RfqDomain;
let market: number;
let market2: number;
const makers: MakerConnection[] = [];

beforeAll(async () => {
  t = await startTestService('rfqhttp', {
    SIWE_DOMAIN,
    RFQ_QUOTE_WINDOW_MS: String(QUOTE_WINDOW_MS),
    DEMO_ONCHAIN_BALANCE_MICROS: String(1_000_000 * USDC),
  });
  ({ svc, privy, sql } = t);
  domain = await fetchDomain(svc.baseUrl);
  market = (await currentMarketId(svc.baseUrl, 'BTC', 86400)).marketId;
  market2 = (await currentMarketId(svc.baseUrl, 'ETH', 86400)).marketId;
});

afterEach(async () => {
  for (const m of makers) m.autoQuote(() => null);
  expect(await ledgerProblems(sql)).toEqual([]);
});

afterAll(async () => {
  for (const m of makers) m.close();
  await t?.stop();
});

async function maker(collateralMicros = 100 * USDC) {
  const m = await readyMaker(svc.baseUrl, { operatorToken: t.operatorToken, siweDomain: SIWE_DOMAIN, domain, collateralMicros });
  makers.push(m);
  return m;
}

const taker = (fund = 10 * USDC) => newTaker(svc.baseUrl, privy, fund);
const legs = (...ids: number[]) => ids.map((market_id, i) => ({ market_id, direction: i % 2 ? ('down' as const) : ('up' as const) }));
const get = (p: Party, id: string, waitMs?: number) =>
  call(svc.baseUrl, `GET /v1/rfq/${id}${waitMs ? `?wait_ms=${waitMs}` : ''}`, { token: p.token });
const accept = (p: Party, id: string, quoteId: string, key = randomUUID()) =>
  call(svc.baseUrl, `POST /v1/rfq/${id}/accept`, { token: p.token, body: { quote_id: quoteId, idempotency_key: key } });
const cancel = (p: Party, id: string) => call(svc.baseUrl, `POST /v1/rfq/${id}/cancel`, { token: p.token, body: {} });
/** The checksummed address with one letter's case flipped so that it stays mixed case: matches the pattern, fails EIP-55. */
function badChecksum(address: string): string {
  for (let i = 2; i < address.length; i++) {
    const c = address[i]!;
    if (!/[a-fA-F]/.test(c)) continue;
    const flipped = address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
    if (/[a-f]/.test(flipped.slice(2)) && /[A-F]/.test(flipped.slice(2))) return flipped;
  }
  throw new Error(`no mixed-case flip of ${address}`);
}
const expectError = (res: { status: number; body?: { code?: unknown } }, status: number, code: string) =>
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });

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
    expect(resultA).toMatchObject({ status: 'filled', fill_stake_micros: '600000', liability_micros: '660000', position_id: res.body.position_id });
    const mine = await call(svc.baseUrl, `GET /v1/mm/rfq/${id}`, { token: a.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ rfq_id: id, status: 'filled', closed_at_ms: res.body.closed_at_ms });
    expect(mine.body.quotes).toEqual([expect.objectContaining({ odds_bps: 21_000, status: 'filled', filled_stake_micros: '600000', reason: null })]);
    // the taker reads the same RFQ back
    const again = await get(tk, id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('IOC fills what the quotes cover and releases the rest', async () => {
    const m = await maker();
    const tk = await taker();
    m.autoQuote(() => ({ odds_bps: 20_000, max_fill_micros: 700_000 }));
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { stake_micros: 2 * USDC, order_type: 'IOC' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'filled', filled_stake_micros: '700000', payout_micros: '1400000', odds_bps: 20_000 });
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(10 * USDC - 700_000), reserved: '700000' });
    expect(await balances(svc.baseUrl, m.party.token)).toEqual({ available: String(100 * USDC - 700_000), reserved: '700000' });
  });

  it('FOK with too little liquidity expires insufficient_liquidity and releases the whole stake', async () => {
    const m = await maker();
    const tk = await taker();
    m.autoQuote(() => ({ odds_bps: 20_000, max_fill_micros: 500_000 }));
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { stake_micros: 2 * USDC, order_type: 'FOK' }));
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
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { stake_micros: USDC }), { fillMode: 'manual' });
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
    expect(woke.body).toMatchObject({ status: 'open', quotes_received: 1 });
    expect(woke.body.quotes).toEqual([
      { quote_id: ack.quote_id, odds_bps: 25_000, max_fill_micros: String(2 * USDC), valid_until_ms: expect.any(Number), status: 'live' },
    ]);

    const key = randomUUID();
    const filled = await accept(tk, id, ack.quote_id, key);
    expect(filled.status).toBe(200);
    expect(filled.body).toMatchObject({ status: 'filled', filled_stake_micros: String(USDC), payout_micros: '2500000', odds_bps: 25_000 });
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(9 * USDC), reserved: String(USDC) });
    expect(await balances(svc.baseUrl, m.party.token)).toEqual({ available: String(100 * USDC - 1_500_000), reserved: '1500000' });
    expect(await m.next('quote_result', (f) => f.rfq_id === id)).toMatchObject({ status: 'filled', liability_micros: '1500000' });

    const replay = await accept(tk, id, ack.quote_id, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(filled.body);
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
    expect((await get(tk, id)).body.status).toBe('open');
    expect((await cancel(tk, id)).status).toBe(200);
  });

  it('a long-poll also wakes when the RFQ closes (cancel)', async () => {
    const tk = await taker();
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' });
    const poll = get(tk, res.body.rfq_id, 10_000);
    await new Promise((r) => setTimeout(r, 300)); // let the long-poll start waiting before the cancel lands
    expect((await cancel(tk, res.body.rfq_id)).status).toBe(200);
    expect((await poll).body).toMatchObject({ status: 'cancelled', close_reason: 'cancelled' });
  });

  it('cancel releases the stake; a repeat answers the same cancelled RFQ', async () => {
    const tk = await taker();
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { stake_micros: 3 * USDC }), {
      fillMode: 'manual',
    });
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(7 * USDC), reserved: String(3 * USDC) });
    const first = await cancel(tk, res.body.rfq_id);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'cancelled', close_reason: 'cancelled', filled_stake_micros: '0' });
    expect(first.body.closed_at_ms).toEqual(expect.any(Number));
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(10 * USDC), reserved: '0' });
    const repeat = await cancel(tk, res.body.rfq_id);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    const stranger = await taker(0);
    expectError(await cancel(stranger, res.body.rfq_id), 404, 'RFQ_NOT_FOUND');
  });
});

describe('what bad input gets (docs/getting-started.md, Trading as a taker)', () => {
  it('400 VALIDATION_FAILED for what the schema refuses, with nothing reserved', async () => {
    const tk = await taker();
    const ok = buildOrder(tk.wallet.address, legs(market));
    const bad = async (order: unknown, extra: Record<string, unknown> = {}) =>
      call(svc.baseUrl, 'POST /v1/rfq', {
        token: tk.token,
        body: { order, signature: await signOrder(tk.wallet, domain, ok), idempotency_key: randomUUID(), ...extra },
      });
    const tenLegs = Array.from({ length: 10 }, (_, i) => ({ market_id: market + i, direction: 'up' }));
    for (const [order, extra, path] of [
      [{ ...ok, legs: tenLegs }, {}, '/order/legs'],
      [{ ...ok, legs: [] }, {}, '/order/legs'],
      [{ ...ok, legs: [{ market_id: market, direction: 'sideways' }] }, {}, '/order/legs/0/direction'],
      [{ ...ok, min_odds_bps: 10_000 }, {}, '/order/min_odds_bps'],
      [{ ...ok, stake_micros: 0 }, {}, '/order/stake_micros'],
      [{ ...ok, order_type: 'GTC' }, {}, '/order/order_type'],
      [{ ...ok, taker: 'not-an-address' }, {}, '/order/taker'],
      [{ ...ok, taker: tk.wallet.address.toLowerCase().replace('0x', '0X') }, {}, '/order/taker'],
      [ok, { signature: '0x1234' }, '/signature'],
      [ok, { fill_mode: 'fastest' }, '/fill_mode'],
      [ok, { surprise: true }, null],
      [{ ...ok, taker: badChecksum(tk.wallet.address) }, {}, '/order/taker'],
    ] as const) {
      const res = await bad(order, extra);
      expectError(res, 400, 'VALIDATION_FAILED');
      if (path !== null)
        expect(
          res.body.details.map((d: { path: string }) => d.path),
          JSON.stringify(res.body),
        ).toContain(path);
    }
    expectError(await get(tk, randomUUID(), 10_001), 400, 'VALIDATION_FAILED');
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(10 * USDC), reserved: '0' });
  });

  it('422 INVALID_ORDER lists every field; ORDER_EXPIRED; TAKER_MISMATCH; INVALID_SIGNATURE; INSUFFICIENT_BALANCE', async () => {
    const tk = await taker();
    const invalid = await postOrder(
      svc.baseUrl,
      tk,
      domain,
      buildOrder(
        tk.wallet.address,
        [
          { market_id: market, direction: 'up' },
          { market_id: market, direction: 'down' },
        ],
        { stake_micros: 100, deadline_ms: Date.now() + 600_000 },
      ),
    );
    expectError(invalid, 422, 'INVALID_ORDER');
    expect(invalid.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      '/order/deadline_ms',
      '/order/legs/1/market_id',
      '/order/stake_micros',
    ]);

    // best mode needs the quote window + 100 ms before the deadline
    const soon = await postOrder(
      svc.baseUrl,
      tk,
      domain,
      buildOrder(tk.wallet.address, legs(market), { deadline_ms: Date.now() + QUOTE_WINDOW_MS - 500 }),
    );
    expectError(soon, 422, 'ORDER_EXPIRED');
    expect(soon.body.details[0].path).toBe('/order/deadline_ms');
    const past = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { deadline_ms: Date.now() - 1000 }), {
      fillMode: 'manual',
    });
    expectError(past, 422, 'ORDER_EXPIRED');

    const other = randomWallet();
    expectError(await postOrder(svc.baseUrl, tk, domain, buildOrder(other.address, legs(market)), { signer: other }), 422, 'TAKER_MISMATCH');
    expectError(await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { signer: other }), 422, 'INVALID_SIGNATURE');
    const order = buildOrder(tk.wallet.address, legs(market));
    const otherChain = await signOrder(tk.wallet, { ...domain, chainId: 1 }, order);
    expectError(await postOrder(svc.baseUrl, tk, domain, order, { signature: otherChain }), 422, 'INVALID_SIGNATURE');
    const tampered = await signOrder(tk.wallet, domain, order);
    expectError(
      await postOrder(svc.baseUrl, tk, domain, { ...order, stake_micros: order.stake_micros + 1 }, { signature: tampered }),
      422,
      'INVALID_SIGNATURE',
    );

    const broke = await taker(0);
    expectError(await postOrder(svc.baseUrl, broke, domain, buildOrder(broke.wallet.address, legs(market))), 422, 'INSUFFICIENT_BALANCE');
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(10 * USDC), reserved: '0' });
    expect(Number((await sql.query('select count(*)::int as n from rfqs where taker_user_id = $1', [tk.userId])).rows[0].n)).toBe(0);
  });

  it('404 MARKET_NOT_FOUND, 409 BETTING_CLOSED for a window past its betting close', async () => {
    const tk = await taker();
    expectError(await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(987_654_321))), 404, 'MARKET_NOT_FOUND');
    const now = await currentMarketId(svc.baseUrl, 'BTC', 300);
    const prev = await call(svc.baseUrl, `GET /v1/markets/lookup?asset=BTC&duration_secs=300&window_start_ms=${now.startAtMs - 300_000}`);
    expect(prev.status).toBe(200);
    expectError(await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(prev.body.market.market_id))), 409, 'BETTING_CLOSED');
  });

  it('409 NONCE_REUSED for another key on a used nonce; 409 OPEN_RFQ_LIMIT at 10 open RFQs', async () => {
    const tk = await taker(11 * USDC); // the 11th order is covered: the limit, not the balance, refuses it
    const order = buildOrder(tk.wallet.address, legs(market));
    expect((await postOrder(svc.baseUrl, tk, domain, order, { fillMode: 'manual' })).status).toBe(201);
    expectError(await postOrder(svc.baseUrl, tk, domain, order, { fillMode: 'manual' }), 409, 'NONCE_REUSED');
    for (let i = 1; i < 10; i++)
      expect((await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' })).status).toBe(201);
    expectError(await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' }), 409, 'OPEN_RFQ_LIMIT');
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(USDC), reserved: String(10 * USDC) });
    const open = await call(svc.baseUrl, 'GET /v1/rfq?status=open&limit=100', { token: tk.token });
    expect(open.body.rfqs).toHaveLength(10);
    for (const r of open.body.rfqs) expect((await cancel(tk, r.rfq_id)).status).toBe(200);
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(11 * USDC), reserved: '0' });
  });

  it("404 RFQ_NOT_FOUND for another user's RFQ; 403 for the wrong kind of token on either side", async () => {
    const m = await maker();
    const tk = await taker();
    const res = await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' });
    const id = res.body.rfq_id;
    const stranger = await taker(0);
    expectError(await get(stranger, id), 404, 'RFQ_NOT_FOUND');
    expectError(await accept(stranger, id, randomUUID()), 404, 'RFQ_NOT_FOUND');
    expectError(await get(tk, randomUUID()), 404, 'RFQ_NOT_FOUND');
    expectError(await call(svc.baseUrl, `GET /v1/rfq/${id}`, { token: m.token }), 403, 'FORBIDDEN');
    expectError(await call(svc.baseUrl, 'GET /v1/rfq', { token: m.token }), 403, 'FORBIDDEN');
    expectError(await call(svc.baseUrl, `GET /v1/mm/rfq/${id}`, { token: tk.token }), 403, 'FORBIDDEN');
    expectError(await call(svc.baseUrl, `GET /v1/mm/rfq/${randomUUID()}`, { token: m.token }), 404, 'RFQ_NOT_FOUND');
    // a maker that did not quote sees the RFQ's state and no quotes
    expect((await call(svc.baseUrl, `GET /v1/mm/rfq/${id}`, { token: m.token })).body).toEqual({
      rfq_id: id,
      status: 'open',
      closed_at_ms: null,
      quotes: [],
    });
    expect((await cancel(tk, id)).status).toBe(200);
  });
});

describe('idempotency, concurrency, listing', () => {
  it('the same key and body replay the same RFQ; another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const tk = await taker();
    const order = buildOrder(tk.wallet.address, legs(market));
    const key = randomUUID();
    const first = await postOrder(svc.baseUrl, tk, domain, order, { fillMode: 'manual', idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await postOrder(svc.baseUrl, tk, domain, order, { fillMode: 'manual', idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(`/v1/rfq/${first.body.rfq_id}`);
    expect(again.body).toEqual(first.body);
    expectError(
      await postOrder(svc.baseUrl, tk, domain, { ...order, stake_micros: 2 * USDC }, { fillMode: 'manual', idempotencyKey: key }),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(9 * USDC), reserved: String(USDC) });
    const cancelled = await cancel(tk, first.body.rfq_id);
    // a replay answers the RFQ as it is now
    const late = await postOrder(svc.baseUrl, tk, domain, order, { fillMode: 'manual', idempotencyKey: key });
    expect(late.body).toEqual(cancelled.body);
  });

  it('10 concurrent orders against a balance for 3: exactly 3 reserve, 7 are 422 INSUFFICIENT_BALANCE', async () => {
    const tk = await taker(1_500_000);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { stake_micros: 500_000 }), { fillMode: 'manual' }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 422, 'INSUFFICIENT_BALANCE');
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: '0', reserved: '1500000' });
    expect(Number((await sql.query(`select count(*)::int as n from rfqs where taker_user_id = $1 and status = 'open'`, [tk.userId])).rows[0].n)).toBe(
      3,
    );
    for (const r of created) expect((await cancel(tk, r.body.rfq_id)).status).toBe(200);
  });

  it('lists newest first in pages; status filters; a forged cursor is 400 INVALID_CURSOR', async () => {
    const tk = await taker();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' })).body.rfq_id);
    await cancel(tk, ids[0]!);
    const p1 = await call(svc.baseUrl, 'GET /v1/rfq?limit=2', { token: tk.token });
    expect(p1.status).toBe(200);
    expect(p1.body.rfqs.map((r: { rfq_id: string }) => r.rfq_id)).toEqual([ids[2], ids[1]]);
    const p2 = await call(svc.baseUrl, `GET /v1/rfq?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`, { token: tk.token });
    expect(p2.body).toMatchObject({ rfqs: [expect.objectContaining({ rfq_id: ids[0], status: 'cancelled' })], next_cursor: null });
    const open = await call(svc.baseUrl, 'GET /v1/rfq?status=open', { token: tk.token });
    expect(open.body.rfqs.map((r: { rfq_id: string }) => r.rfq_id)).toEqual([ids[2], ids[1]]);
    expectError(await call(svc.baseUrl, `GET /v1/rfq?cursor=${p1.body.next_cursor}x`, { token: tk.token }), 400, 'INVALID_CURSOR');
    expectError(
      await call(svc.baseUrl, `GET /v1/rfq?status=filled&cursor=${encodeURIComponent(p1.body.next_cursor)}`, { token: tk.token }),
      400,
      'INVALID_CURSOR',
    );
    expect((await call(svc.baseUrl, 'GET /v1/rfq', { token: (await taker(0)).token })).body).toEqual({ rfqs: [], next_cursor: null });
    for (const id of ids.slice(1)) await cancel(tk, id);
  });
});

describe('two API processes (the bus carries RFQs, quotes and closes between them)', () => {
  let b: ServiceProcess | undefined;
  afterAll(async () => {
    await b?.stop();
  });

  it('a maker on process A fills an order posted to process B; a long-poll on B wakes on a quote made on A', async () => {
    b = await startServiceProcess({ env: t.env, args: ['--role=api'] });
    const m = await maker(); // connected to process A
    const tk = await taker();
    m.autoQuote(() => ({ odds_bps: 20_000, max_fill_micros: 5 * USDC }));
    const best = await postOrder(b.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market), { stake_micros: USDC }));
    expect(best.status).toBe(201);
    expect(best.body).toMatchObject({ status: 'filled', filled_stake_micros: String(USDC), payout_micros: String(2 * USDC) });
    m.autoQuote(() => null);

    const manual = await postOrder(b.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' });
    const id = manual.body.rfq_id;
    await m.next('rfq', (f) => f.rfq_id === id);
    // Woken by the quote, not by its 10 s wait running out: the answer must come before 8 s have passed
    // (it takes milliseconds; a lost wake-up would take the whole 10 s).
    const beforeWaitEnds = <T>(p: Promise<T>) => Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 8_000))]);
    const poll = beforeWaitEnds(call(b.baseUrl, `GET /v1/rfq/${id}?wait_ms=10000`, { token: tk.token }));
    await new Promise((r) => setTimeout(r, 300)); // let the long-poll on B start waiting before A records the quote
    const ack = await m.quote(id, { odds_bps: 22_000, max_fill_micros: 5 * USDC });
    const woken = await poll;
    expect(woken).not.toBe('still waiting');
    expect(woken !== 'still waiting' && woken.body).toMatchObject({
      status: 'open',
      quotes_received: 1,
      quotes: [expect.objectContaining({ quote_id: ack.quote_id })],
    });
    // min_quotes: a quote already there answers at once; one more than there are waits for the next.
    const have = await beforeWaitEnds(call(b.baseUrl, `GET /v1/rfq/${id}?wait_ms=10000&min_quotes=1`, { token: tk.token }));
    expect(have !== 'still waiting' && have.body).toMatchObject({ quotes_received: 1 });
    const next = beforeWaitEnds(call(b.baseUrl, `GET /v1/rfq/${id}?wait_ms=10000&min_quotes=2`, { token: tk.token }));
    await new Promise((r) => setTimeout(r, 300));
    await m.quote(id, { odds_bps: 23_000, max_fill_micros: 5 * USDC }); // replaces the first: a second quote received
    const second = await next;
    expect(second !== 'still waiting' && second.body).toMatchObject({ quotes_received: 2 });
    expect((await call(b.baseUrl, `POST /v1/rfq/${id}/cancel`, { token: tk.token, body: {} })).status).toBe(200);
  });
});
