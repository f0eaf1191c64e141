// RFQ idempotency, concurrency, listing and two API processes against the real service (src/testing/rfq-service.ts): replays
// and reused keys, concurrent orders against one balance, paged listing with status filters and cursors, and
// fills and long-polls across two API processes (the bus).
// The ledger check holds after every scenario.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { cancelRfq, getRfq, listRfqs } from '../../generated/openapi/sdk.gen.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { balances, buildOrder, postOrder } from '../testing/rfq-trade.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { cancel, domain, expectError, legs, maker, market, sql, svc, t, taker, USDC, useRfqService } from '../testing/rfq-service.js';

useRfqService('rfqlist');

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
    expect(late.body).toEqual(cancelled.data);
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
    expect(
      Number((await sql.query(`select count(*)::int as n from rfqs where taker_user_id = $1 and status = 'open'`, [tk.userId])).rows[0].n),
    ).toBe(3);
    for (const r of created) expect((await cancel(tk, r.body.rfq_id)).status).toBe(200);
  });

  it('lists newest first in pages; status filters; a forged cursor is 400 INVALID_CURSOR', async () => {
    const tk = await taker();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await postOrder(svc.baseUrl, tk, domain, buildOrder(tk.wallet.address, legs(market)), { fillMode: 'manual' })).body.rfq_id);
    await cancel(tk, ids[0]!);
    const client = sdkClient(svc.baseUrl, tk.token);
    const p1 = await send(listRfqs({ client, query: { limit: 2 } }));
    const cursor = p1.data!.next_cursor!;
    expect(p1.status).toBe(200);
    expect(p1.data?.rfqs.map((r) => r.rfq_id)).toEqual([ids[2], ids[1]]);
    const p2 = await send(listRfqs({ client, query: { limit: 2, cursor } }));
    expect(p2.data).toMatchObject({ rfqs: [expect.objectContaining({ rfq_id: ids[0], status: 'cancelled' })], next_cursor: null });
    const open = await send(listRfqs({ client, query: { status: 'open' } }));
    expect(open.data?.rfqs.map((r) => r.rfq_id)).toEqual([ids[2], ids[1]]);
    expectError(await send(listRfqs({ client, query: { cursor: `${cursor}x` } })), 400, 'INVALID_CURSOR');
    expectError(await send(listRfqs({ client, query: { status: 'filled', cursor } })), 400, 'INVALID_CURSOR');
    expect((await send(listRfqs({ client: sdkClient(svc.baseUrl, (await taker(0)).token) }))).data).toEqual({
      rfqs: [],
      next_cursor: null,
    });
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
    const beforeWaitEnds = <T>(p: Promise<T>) =>
      Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 8_000))]);
    const onB = sdkClient(b.baseUrl, tk.token);
    const longPoll = (minQuotes?: number) =>
      send(getRfq({ client: onB, path: { rfq_id: id }, query: { wait_ms: 10_000, ...(minQuotes ? { min_quotes: minQuotes } : {}) } }));
    const poll = beforeWaitEnds(longPoll());
    await new Promise((r) => setTimeout(r, 300)); // let the long-poll on B start waiting before A records the quote
    const ack = await m.quote(id, { odds_bps: 22_000, max_fill_micros: 5 * USDC });
    const woken = await poll;
    expect(woken).not.toBe('still waiting');
    expect(woken !== 'still waiting' && woken.data).toMatchObject({
      status: 'open',
      quotes_received: 1,
      quotes: [expect.objectContaining({ quote_id: ack.quote_id })],
    });
    // min_quotes: a quote already there answers at once; one more than there are waits for the next.
    const have = await beforeWaitEnds(longPoll(1));
    expect(have !== 'still waiting' && have.data).toMatchObject({ quotes_received: 1 });
    const next = beforeWaitEnds(longPoll(2));
    await new Promise((r) => setTimeout(r, 300));
    await m.quote(id, { odds_bps: 23_000, max_fill_micros: 5 * USDC }); // replaces the first: a second quote received
    const second = await next;
    expect(second !== 'still waiting' && second.data).toMatchObject({ quotes_received: 2 });
    expect((await send(cancelRfq({ client: onB, path: { rfq_id: id }, body: {} }))).status).toBe(200);
  });
});
