// Fair shares of RFQ long-polls (docs/market-makers.md "Long-polls"): a user holding its cap of
// GET /v1/rfq/{rfq_id}?wait_ms on a process is refused the next one (503 TOO_MANY_WAITERS) while another
// user's long-poll on that process waits and is woken by a quote as usual. Two API processes, with Redis
// and with PostgreSQL only: the long-polls are on A, the quote arrives through a maker connected to B.
import { describe, expect, it } from 'vitest';
import { cancelRfq, getRfq } from '../../generated/openapi/sdk.gen.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { buildOrder, postOrder, type Party } from '../testing/rfq-trade.js';
import { BACKENDS, useTwoProcesses, USDC } from '../testing/two-processes.js';

const PER_USER = 1000; // the figure: a user's 1,001st long-poll is refused

describe.each(BACKENDS)('long-polls per user (%s)', (backend) => {
  const h = useTwoProcesses('longpoll', backend, {
    RFQ_MAX_WAITERS: String(2 * PER_USER),
    RFQ_MAX_WAITERS_PER_USER: String(PER_USER),
    HTTP_MAX_CONNECTIONS_PER_IP: '0', // every long-poll of this test comes from 127.0.0.1
  });

  const openRfq = async (taker: Party) => {
    const order = buildOrder(taker.wallet.address, [{ market_id: h.markets.btc, direction: 'up' }], { stake_micros: USDC });
    const res = await postOrder(h.a.baseUrl, taker, h.domain, order, { fillMode: 'manual' });
    expect(res.status).toBe(201);
    return res.body.rfq_id as string;
  };
  const longPoll = (p: Party, rfqId: string) =>
    send(getRfq({ client: sdkClient(h.a.baseUrl, p.token), path: { rfq_id: rfqId }, query: { wait_ms: 10_000 } }));
  const waiters = async () => {
    const res = await fetch(`${h.a.baseUrl}/metrics`, { headers: { authorization: `Bearer ${h.t.operatorToken}` } });
    return Number(/^rfq_long_poll_waiters (\d+)$/m.exec(await res.text())?.[1] ?? NaN);
  };

  it(`a user's ${PER_USER + 1}st long-poll is refused 503 TOO_MANY_WAITERS while another user's waits and wakes normally`, async () => {
    const maker = await h.maker(h.b);
    const [hog, fair] = [await h.taker(), await h.taker()];
    const hogRfq = await openRfq(hog);
    const held = Array.from({ length: PER_USER }, () => longPoll(hog, hogRfq));
    let settled = 0;
    for (const p of held) void p.then(() => (settled += 1));
    // Every one of them is held: the service counts them (no timer: poll the count).
    await expect.poll(waiters, { timeout: 30_000, interval: 100 }).toBe(PER_USER);

    const refused = await longPoll(hog, hogRfq);
    expect(refused.status).toBe(503);
    expect(refused.error?.code).toBe('TOO_MANY_WAITERS');
    expect(refused.headers.get('retry-after')).toBe('1');

    const fairRfq = await openRfq(fair);
    const waiting = longPoll(fair, fairRfq);
    await expect.poll(waiters, { timeout: 10_000, interval: 50 }).toBe(PER_USER + 1);
    await maker.next('rfq', (f) => f.rfq_id === fairRfq);
    expect((await maker.quote(fairRfq, { odds_bps: 20_000, max_fill_micros: USDC })).accepted).toBe(true);
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.data?.quotes_received).toBe(1);
    expect(settled).toBe(0); // the hog's long-polls were not answered early

    // Cancelling the hog's RFQ wakes all of its long-polls with the cancelled RFQ.
    expect((await send(cancelRfq({ client: sdkClient(h.a.baseUrl, hog.token), path: { rfq_id: hogRfq }, body: {} }))).status).toBe(200);
    const results = await Promise.all(held);
    expect(new Set(results.map((r) => `${r.status} ${r.data?.status}`))).toEqual(new Set(['200 cancelled']));
  }, 120_000);
});
