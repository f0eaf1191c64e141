// Market-maker protection (docs/market-makers.md "MMP"): a maker sets a limit of 2 fills a minute; the
// second fill trips it: its other live quote is cancelled (quote_result cancelled mmp_triggered),
// mmp_status says tripped on its connections, new quotes are refused mmp_triggered, and mmp_reset lets it
// quote again. Two API processes, with Redis and with PostgreSQL only: RFQs on A, the maker on B, a second
// connection of the maker on A.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildOrder, postOrder } from '../testing/rfq-trade.js';
import { BACKENDS, useTwoProcesses, USDC } from '../testing/two-processes.js';

describe.each(BACKENDS)('market-maker protection (%s)', (backend) => {
  const h = useTwoProcesses('mmp', backend, { RFQ_QUOTE_WINDOW_MS: '1500' });

  it('trips on the second fill of the interval, pulls the live quotes, refuses quotes until mmp_reset', async () => {
    const m = await h.maker(h.b);
    const other = await h.connect(h.a, m.wallet);
    m.send({ type: 'mmp_set', interval_ms: 60_000, max_fills: 2 });
    expect(await m.next('mmp_status')).toMatchObject({ enabled: true, max_fills: 2, window_fills: 0, tripped_at_ms: null });
    const taker = await h.taker();
    const legs = [{ market_id: h.markets.btc, direction: 'up' as const }];
    const post = (fillMode: 'best' | 'manual') =>
      postOrder(h.a.baseUrl, taker, h.domain, buildOrder(taker.wallet.address, legs, { stake_micros: USDC }), { fillMode });

    const manual = await post('manual');
    await m.next('rfq', (f) => f.rfq_id === manual.body.rfq_id);
    const resting = await m.quote(manual.body.rfq_id, { odds_bps: 20_000, max_fill_micros: USDC, client_quote_id: randomUUID() });
    expect(resting.accepted).toBe(true);

    for (let i = 0; i < 2; i++) {
      const pending = post('best');
      const f = await m.next(
        'rfq',
        (x) => x.fill_mode === 'best' && !m.frames.some((q) => q.type === 'quote_ack' && q.rfq_id === x.rfq_id),
      );
      expect((await m.quote(f.rfq_id, { odds_bps: 20_000, max_fill_micros: USDC })).accepted).toBe(true);
      expect((await pending).body).toMatchObject({ status: 'filled' });
    }
    for (const c of [m, other]) {
      expect(await c.next('mmp_status', (s) => s.tripped_at_ms !== null)).toMatchObject({
        window_fills: 2,
        window_liability_micros: String(2 * USDC),
      });
      expect(await c.next('quote_result', (r) => r.quote_id === resting.quote_id)).toMatchObject({
        status: 'cancelled',
        reason: 'mmp_triggered',
      });
    }

    const refused = await m.quote(manual.body.rfq_id, { odds_bps: 20_000, max_fill_micros: USDC });
    expect(refused).toMatchObject({ accepted: false, error: 'mmp_triggered' });

    m.send({ type: 'mmp_reset' });
    expect(await m.next('mmp_status', (s) => s.tripped_at_ms === null && s.window_fills === 0)).toMatchObject({ enabled: true });
    expect((await m.quote(manual.body.rfq_id, { odds_bps: 20_000, max_fill_micros: USDC })).accepted).toBe(true);
  }, 60_000);
});
