// Bursts are normal (docs/market-makers.md "Bursts"): a maker answering a burst of RFQs with 250 quotes at
// once gets a quote_ack for every one of them, `rate_limited` past its quote budget, and keeps its
// connection; a quote with a bad value is answered by its own quote_ack with the specific error. On two
// API processes with Redis and with PostgreSQL only: the taker posts on A, the maker quotes on B.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { quoteTypedData } from '../domain/rfq/typed-data.js';
import { buildOrder, postOrder } from '../testing/rfq-trade.js';
import { BACKENDS, useTwoProcesses, USDC } from '../testing/two-processes.js';

const RFQS = 50;
const QUOTES_PER_RFQ = 5;
const QUOTES_PER_SECOND = 100; // the default MM_MAX_QUOTES_PER_SECOND

describe.each(BACKENDS)('bursts of quotes (%s)', (backend) => {
  const h = useTwoProcesses('mmburst', backend);

  it('250 quotes at once: each gets its quote_ack, those past the budget rate_limited at once; the connection stays', async () => {
    const m = await h.maker(h.b);
    const taker = await h.taker();
    const rfqIds: string[] = [];
    for (let i = 0; i < RFQS; i++) {
      const order = buildOrder(taker.wallet.address, [{ market_id: h.markets.btc, direction: 'up' }], { stake_micros: USDC });
      const res = await postOrder(h.a.baseUrl, taker, h.domain, order, { fillMode: 'manual' });
      expect(res.status).toBe(201);
      rfqIds.push(res.body.rfq_id);
    }
    for (const id of rfqIds) await m.next('rfq', (f) => f.rfq_id === id, 20_000);

    // Signed beforehand, sent in one go.
    const validUntil = Date.now() + 25_000;
    const frames = [];
    for (let k = 0; k < QUOTES_PER_RFQ; k++) {
      for (const rfqId of rfqIds) {
        const q = { rfq_id: rfqId, odds_bps: 20_000 + k, max_fill_micros: USDC, valid_until_ms: validUntil };
        const signature = await m.wallet.signTypedData(quoteTypedData(h.domain, { ...q, maker: m.wallet.address }));
        frames.push({ type: 'quote', ...q, client_quote_id: randomUUID(), signature });
      }
    }
    for (const f of frames) m.send(f);

    const acks = [];
    for (const f of frames) acks.push(await m.next('quote_ack', (a) => a.client_quote_id === f.client_quote_id, 30_000));
    const limited = acks.filter((a) => a.error === 'rate_limited');
    const accepted = acks.filter((a) => a.accepted);
    console.log(`${backend}: 250 quotes at once: ${accepted.length} accepted, ${limited.length} rate_limited`);
    expect(accepted.length + limited.length).toBe(frames.length);
    expect(accepted.length).toBeGreaterThanOrEqual(QUOTES_PER_SECOND);
    expect(limited.length).toBeGreaterThan(0);
    for (const a of limited) expect(a).toMatchObject({ accepted: false, quote_id: null, rfq_id: expect.any(String) });
    expect(m.frames.some((f) => f.type === 'error')).toBe(false);

    // The connection is still open and usable once the budget refills.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await m.subscribe()).toMatchObject({ type: 'subscribed' });
    const again = await m.quote(rfqIds[0]!, { odds_bps: 30_000, max_fill_micros: USDC, client_quote_id: randomUUID() });
    expect(again).toMatchObject({ accepted: true, error: null });
  }, 120_000);

  it('a quote with a bad value gets its quote_ack with the specific error and its client_quote_id, not an error frame', async () => {
    const m = await h.maker(h.b);
    const rfqId = randomUUID();
    const base = {
      type: 'quote',
      rfq_id: rfqId,
      odds_bps: 20_000,
      max_fill_micros: USDC,
      valid_until_ms: Date.now() + 10_000,
      signature: `0x${'ab'.repeat(65)}`,
    };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ odds_bps: 10_000 }, 'invalid_odds'],
      [{ odds_bps: 10_000_001 }, 'invalid_odds'],
      [{ max_fill_micros: 0 }, 'invalid_odds'],
      [{ valid_until_ms: -1 }, 'quote_expired'],
      [{ extra_field: 1 }, 'malformed_quote'],
    ];
    for (const [over, error] of cases) {
      const client_quote_id = randomUUID();
      m.send({ ...base, ...over, client_quote_id });
      const ack = await m.next('quote_ack', (a) => a.client_quote_id === client_quote_id);
      expect(ack).toEqual({ type: 'quote_ack', rfq_id: rfqId, quote_id: null, client_quote_id, accepted: false, error });
    }
    m.send({ ...base, rfq_id: 'not-a-uuid' });
    expect(await m.next('quote_ack', (a) => a.rfq_id === 'not-a-uuid')).toMatchObject({ error: 'unknown_rfq', client_quote_id: null });
    m.send({ type: 'quote_cancel', rfq_id: rfqId, quote_id: 'nope' });
    expect(await m.next('quote_ack', (a) => a.rfq_id === rfqId && a.error === 'quote_not_live')).toMatchObject({ accepted: false });
    expect(m.frames.filter((f) => f.type === 'error')).toEqual([]);
  });
});
