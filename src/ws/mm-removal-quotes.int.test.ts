// Removal takes effect (docs/market-makers.md "Removal"): DELETE /v1/admin/market-makers/{wallet} cancels
// every live quote of the maker in its transaction, so none of them fills afterwards, on two API processes
// with Redis and with PostgreSQL only. The maker quotes on B; the taker and the operator use A.
import { describe, expect, it } from 'vitest';
import { acceptRfqQuote, createMarketMaker, deleteMarketMaker, getRfq } from '../../generated/openapi/sdk.gen.js';
import { balances, buildOrder, postOrder } from '../testing/rfq-trade.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { BACKENDS, useTwoProcesses, USDC } from '../testing/two-processes.js';

const QUOTE_WINDOW_MS = 3000;

describe.each(BACKENDS)('removal withdraws live quotes (%s)', (backend) => {
  const h = useTwoProcesses('mmremove', backend, { RFQ_QUOTE_WINDOW_MS: String(QUOTE_WINDOW_MS) });

  it('removal during open RFQs: manual quotes can no longer be accepted, the best-mode RFQ fills nothing from the removed maker', async () => {
    const removed = await h.maker(h.b);
    const stays = await h.maker(h.a);
    const taker = await h.taker();
    const legs = [{ market_id: h.markets.btc, direction: 'up' as const }];

    // Two manual RFQs quoted by the maker that is removed; the quotes are live.
    const manual: Array<{ rfqId: string; quoteId: string }> = [];
    for (let i = 0; i < 2; i++) {
      const res = await postOrder(h.a.baseUrl, taker, h.domain, buildOrder(taker.wallet.address, legs, { stake_micros: USDC }), {
        fillMode: 'manual',
      });
      expect(res.status).toBe(201);
      const rfqId = res.body.rfq_id as string;
      await removed.next('rfq', (f) => f.rfq_id === rfqId);
      const ack = await removed.quote(rfqId, { odds_bps: 30_000, max_fill_micros: USDC });
      expect(ack).toMatchObject({ accepted: true, error: null });
      manual.push({ rfqId, quoteId: ack.quote_id as string });
    }

    // A best-mode RFQ: the removed maker quotes best (40000), the one that stays quotes 25000.
    const best = postOrder(h.a.baseUrl, taker, h.domain, buildOrder(taker.wallet.address, legs, { stake_micros: USDC }));
    const frame = await removed.next('rfq', (f) => !manual.some((m) => m.rfqId === f.rfq_id));
    expect((await removed.quote(frame.rfq_id, { odds_bps: 40_000, max_fill_micros: USDC })).accepted).toBe(true);
    await stays.next('rfq', (f) => f.rfq_id === frame.rfq_id);
    expect((await stays.quote(frame.rfq_id, { odds_bps: 25_000, max_fill_micros: USDC })).accepted).toBe(true);

    const operator = sdkClient(h.a.baseUrl, h.t.operatorToken);
    const del = await sent(deleteMarketMaker({ client: operator, path: { wallet_address: removed.wallet.address } }));
    expect(del.status).toBe(204);

    // The best-mode RFQ fills from the maker that stays, at its odds.
    const filled = await best;
    expect(filled.status).toBe(201);
    expect(filled.body).toMatchObject({ status: 'filled', odds_bps: 25_000, filled_stake_micros: String(USDC) });

    // The manual quotes are cancelled: accepting one is 409 QUOTE_NOT_LIVE, and the RFQ lists it cancelled.
    for (const m of manual) {
      const acc = await sent(
        acceptRfqQuote({
          client: sdkClient(h.a.baseUrl, taker.token),
          path: { rfq_id: m.rfqId },
          body: { quote_id: m.quoteId, idempotency_key: crypto.randomUUID() },
        }),
      );
      expect(acc.status).toBe(409);
      expect(acc.error?.code).toBe('QUOTE_NOT_LIVE');
      const rfq = await sent(getRfq({ client: sdkClient(h.b.baseUrl, taker.token), path: { rfq_id: m.rfqId } }));
      expect(rfq.data?.quotes).toEqual([expect.objectContaining({ quote_id: m.quoteId, status: 'cancelled' })]);
    }

    // Nothing of the removed maker is reserved: no fill reached it.
    const { rows } = await h.t.sql.query<{ n: string }>('select count(*) as n from position_fills where maker_address = $1', [
      removed.wallet.address.toLowerCase(),
    ]);
    expect(rows[0]!.n).toBe('0');
    // Its connection on B ended with AUTH_EXPIRED.
    await removed.next('AUTH_EXPIRED');
  });

  it('a removed maker registered again starts with no live quote', async () => {
    const m = await h.maker(h.b);
    const taker = await h.taker();
    const res = await postOrder(
      h.a.baseUrl,
      taker,
      h.domain,
      buildOrder(taker.wallet.address, [{ market_id: h.markets.eth, direction: 'down' }], { stake_micros: USDC }),
      {
        fillMode: 'manual',
      },
    );
    await m.next('rfq', (f) => f.rfq_id === res.body.rfq_id);
    expect((await m.quote(res.body.rfq_id, { odds_bps: 21_000, max_fill_micros: USDC })).accepted).toBe(true);
    expect(
      (await sent(deleteMarketMaker({ client: sdkClient(h.a.baseUrl, h.t.operatorToken), path: { wallet_address: m.wallet.address } })))
        .status,
    ).toBe(204);
    const again = await sent(
      createMarketMaker({ client: sdkClient(h.b.baseUrl, h.t.operatorToken), body: { wallet_address: m.wallet.address, name: 'again' } }),
    );
    expect(again.status).toBe(201);
    const rfq = await sent(getRfq({ client: sdkClient(h.a.baseUrl, taker.token), path: { rfq_id: res.body.rfq_id } }));
    expect(rfq.data?.quotes.map((q) => q.status)).toEqual(['cancelled']);
    expect(await balances(h.a.baseUrl, taker.token)).toEqual({ available: String(99 * USDC), reserved: String(USDC) });
  });
});
