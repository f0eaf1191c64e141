// What bad input to the RFQ routes gets, against the real service (src/testing/rfq-service.ts): schema
// refusals, invalid orders, expired or mismatched ones, bad signatures, missing balance, closed markets,
// reused nonces, the open-RFQ limit, other users' RFQs and the wrong kind of token. Nothing is reserved
// for a refused order; the ledger check holds after every scenario.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getMakerRfq, getRfq, listRfqs, lookupMarket } from '../../generated/openapi/sdk.gen.js';
import { randomWallet } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { balances, buildOrder, currentMarketId, postOrder, signOrder } from '../testing/rfq-trade.js';
import {
  accept,
  badChecksum,
  cancel,
  domain,
  expectError,
  get,
  legs,
  maker,
  market,
  QUOTE_WINDOW_MS,
  sql,
  svc,
  taker,
  USDC,
  useRfqService,
} from '../testing/rfq-service.js';

useRfqService('rfqbad');

describe('what bad input gets (docs/getting-started.md, Trading as a taker)', () => {
  it('400 VALIDATION_FAILED for what the schema refuses, with nothing reserved', async () => {
    const tk = await taker();
    const ok = buildOrder(tk.wallet.address, legs(market));
    // Raw requests: these orders break the spec's types, which the SDK will not take.
    const bad = async (order: unknown, extra: Record<string, unknown> = {}) => {
      const res = await fetch(`${svc.baseUrl}/v1/rfq`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tk.token}` },
        body: JSON.stringify({ order, signature: await signOrder(tk.wallet, domain, ok), idempotency_key: randomUUID(), ...extra }),
      });
      return { status: res.status, body: (await res.json()) as { code: string; details: Array<{ path: string }> } };
    };
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
          res.body.details.map((d) => d.path),
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
    expectError(
      await postOrder(svc.baseUrl, tk, domain, buildOrder(other.address, legs(market)), { signer: other }),
      422,
      'TAKER_MISMATCH',
    );
    expectError(
      await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { signer: other }),
      422,
      'INVALID_SIGNATURE',
    );
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
    const prev = await send(
      lookupMarket({
        client: sdkClient(svc.baseUrl),
        query: { asset: 'BTC', duration_secs: 300, window_start_ms: now.startAtMs - 300_000 },
      }),
    );
    expect(prev.status).toBe(200);
    expectError(
      await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(prev.data!.market.market_id))),
      409,
      'BETTING_CLOSED',
    );
  });

  it('409 NONCE_REUSED for another key on a used nonce; 409 OPEN_RFQ_LIMIT at 10 open RFQs', async () => {
    const tk = await taker(11 * USDC); // the 11th order is covered: the limit, not the balance, refuses it
    const order = buildOrder(tk.wallet.address, legs(market));
    expect((await postOrder(svc.baseUrl, tk, domain, order, { fillMode: 'manual' })).status).toBe(201);
    expectError(await postOrder(svc.baseUrl, tk, domain, order, { fillMode: 'manual' }), 409, 'NONCE_REUSED');
    for (let i = 1; i < 10; i++)
      expect((await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' })).status).toBe(
        201,
      );
    expectError(
      await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' }),
      409,
      'OPEN_RFQ_LIMIT',
    );
    expect(await balances(svc.baseUrl, tk.token)).toEqual({ available: String(USDC), reserved: String(10 * USDC) });
    const open = await send(listRfqs({ client: sdkClient(svc.baseUrl, tk.token), query: { status: 'open', limit: 100 } }));
    expect(open.data?.rfqs).toHaveLength(10);
    for (const r of open.data?.rfqs ?? []) expect((await cancel(tk, r.rfq_id)).status).toBe(200);
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
    const asMaker = sdkClient(svc.baseUrl, m.token);
    expectError(await send(getRfq({ client: asMaker, path: { rfq_id: id } })), 403, 'FORBIDDEN');
    expectError(await send(listRfqs({ client: asMaker })), 403, 'FORBIDDEN');
    expectError(await send(getMakerRfq({ client: sdkClient(svc.baseUrl, tk.token), path: { rfq_id: id } })), 403, 'FORBIDDEN');
    expectError(await send(getMakerRfq({ client: asMaker, path: { rfq_id: randomUUID() } })), 404, 'RFQ_NOT_FOUND');
    // a maker that did not quote sees the RFQ's state and no quotes
    expect((await send(getMakerRfq({ client: asMaker, path: { rfq_id: id } }))).data).toEqual({
      rfq_id: id,
      status: 'open',
      closed_at_ms: null,
      quotes: [],
    });
    expect((await cancel(tk, id)).status).toBe(200);
  });
});
