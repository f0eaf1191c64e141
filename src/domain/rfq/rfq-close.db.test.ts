// Medium tier: quotes and closes on real PostgreSQL: replace, self-trade, collateral, client ids; the best fill
// across makers (FOK/IOC), accept, cancel, sweeper selection, races, and the ledger's reserved invariant.
// Setup in src/testing/rfq-db.ts.
import { randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { checkLedger, userBalances } from '../ledger/ledger.js';
import { acceptQuote, cancelQuote, cancelRfq, closeRfq, createRfq, dueRfqIds, getMakerRfq, getOwnRfq, listOwnRfqs } from './api.js';
import type { RfqDeps } from './deps.js';
import {
  balances,
  create,
  deps,
  em,
  expectFresh,
  fx,
  MM1,
  MM2,
  MM3,
  order,
  quote,
  sign,
  TAKER,
  useRfqDb,
  userWith,
} from '../../testing/rfq-db.js';
import { inTransaction } from '../../db/unit-of-work.js';

useRfqDb();

describe('quotes and close', () => {
  it('fills best first across makers (IOC) and keeps the ledger exact', async () => {
    const r = await create(order({ min_odds_bps: 15_000 }));
    const id = r.rfq.rfq.id;
    const q1 = await quote(MM1, id, 21_000, 4_000_000);
    const q2 = await quote(MM2, id, 20_000, 100_000_000, { client_quote_id: randomUUID() });
    const low = await quote(MM2, id, 12_000, 1_000_000); // replaces MM2's first quote
    expect([q1.ack.accepted, q2.ack.accepted, low.ack.accepted]).toEqual([true, true, true]);
    // Best mode: no rfq.quote (its long-polls wake on rfq.closed); the replaced quote's quote_result.
    expect(low.events.map((e) => e.topic)).toEqual(['mm.event']);
    const q2b = await quote(MM2, id, 20_000, 100_000_000);
    expect((await quote(MM3, id, 30_000, 1_000_000)).ack).toMatchObject({ accepted: false, error: 'insufficient_collateral' });

    const early = await closeRfq(em(), deps, id);
    expect(early.changed).toBe(false);
    await expectFresh(early.rfq);
    const mm1Before = await balances('mm1');
    const takerBefore = await balances('taker');
    fx.clock += 500;
    const [a, b] = await Promise.all([closeRfq(em(), deps, id), closeRfq(em(), deps, id)]);
    expect([a.changed, b.changed].sort()).toEqual([false, true]);
    const closed = a.changed ? a : b;
    await expectFresh(closed.rfq);
    await expectFresh((a.changed ? b : a).rfq);
    // 4 at 2.1 (payout 8.4, liability 4.4) + 6 at 2.0 (payout 12, liability 6): 20.4 for 10 -> 20400 bps
    expect(closed.rfq.rfq).toMatchObject({ status: 'filled', filledStakeMicros: 10_000_000n, payoutMicros: 20_400_000n, oddsBps: 20_400 });
    // The makers' quote_result frames travel inside rfq.closed, with the wallet each goes to.
    const results = closed.events.flatMap((e) => (e.topic === 'rfq.closed' ? e.results.map((r) => r.frame) : []));
    expect(closed.events.filter((e) => e.topic === 'mm.event')).toEqual([]);
    expect(results.find((f) => f.quote_id === q1.ack.quote_id)).toMatchObject({
      status: 'filled',
      fill_stake_micros: '4000000',
      liability_micros: '4400000',
    });
    expect(results.find((f) => f.quote_id === q2b.ack.quote_id)).toMatchObject({
      status: 'filled',
      fill_stake_micros: '6000000',
      liability_micros: '6000000',
    });
    expect(closed.events[0]).toMatchObject({
      topic: 'rfq.closed',
      frame: { type: 'rfq_closed', rfq_id: id, status: 'filled' },
      route: { assets: ['BTC'], durations: [300], legs: [{ asset: 'BTC', duration_secs: 300 }] },
    });
    expect(mm1Before.available - (await balances('mm1')).available).toBe(4_400_000n);
    expect((await balances('taker')).reserved).toBe(takerBefore.reserved); // the stake stays reserved in the position
    const pos = await db(em()).selectFrom('positions').selectAll().where('rfq_id', '=', id).executeTakeFirstOrThrow();
    expect(pos).toMatchObject({ stake: '10000000', payout: '20400000', status: 'open' });
    expect(await checkLedger(em())).toEqual([]);
    const mine = await getMakerRfq(em(), MM1!.address, id);
    expect(mine.quotes.map((q) => q.id)).toEqual([q1.ack.quote_id]);
    expect((await quote(MM1, id, 21_000, 1_000_000)).ack.error).toBe('rfq_closed');
  });
});

describe('quote refusals', () => {
  it('refuses a quote whose signature does not recover to its maker at quote_ack, and FOK expires when the rest cannot fill it', async () => {
    const r = await create(order({ order_type: 'FOK' }));
    const id = r.rfq.rfq.id;
    expect((await quote(MM1, id, 30_000, 10_000_000, { badSig: true })).ack).toMatchObject({ accepted: false, error: 'invalid_signature' });
    await quote(MM2, id, 20_000, 5_000_000);
    const before = await balances('taker');
    fx.clock += 600;
    const closed = await closeRfq(em(), deps, id);
    expect(closed.rfq.rfq).toMatchObject({ status: 'expired', closeReason: 'insufficient_liquidity' });
    await expectFresh(closed.rfq);
    expect(closed.rfq.quotes.map((q) => q.makerAddress)).toEqual([MM2!.address.toLowerCase()]);
    const after = await balances('taker');
    expect(after.available - before.available).toBe(10_000_000n);
    expect(await checkLedger(em())).toEqual([]);
  });

  it('refuses self-trades and duplicate client quote ids; cancels a quote once', async () => {
    const r = await create(order(), 'manual');
    const id = r.rfq.rfq.id;
    const self = await quote(TAKER, id, 20_000, 1_000_000);
    expect(self.ack.error).toBe('self_trade');
    const cq = randomUUID();
    const first = await quote(MM1, id, 20_000, 1_000_000, { client_quote_id: cq });
    expect((await quote(MM1, id, 20_000, 1_000_000, { client_quote_id: cq })).ack).toEqual(first.ack);
    expect((await quote(MM1, id, 21_000, 1_000_000, { client_quote_id: cq })).ack.error).toBe('duplicate_client_quote_id');
    expect((await cancelQuote(em(), MM1!.address, id, first.ack.quote_id!)).ack.accepted).toBe(true);
    expect((await cancelQuote(em(), MM1!.address, id, first.ack.quote_id!)).ack.error).toBe('quote_not_live');
    expect((await quote(MM1, randomUUID(), 20_000, 1_000_000)).ack.error).toBe('unknown_rfq');
  });
});

describe('manual mode and the due list', () => {
  it('manual: accepts one quote (others outbid), refuses a quote below min odds; cancel releases and repeats', async () => {
    const r = await create(order({ min_odds_bps: 18_000 }), 'manual');
    const id = r.rfq.rfq.id;
    const a = await quote(MM1, id, 19_000, 10_000_000);
    const b = await quote(MM2, id, 17_000, 10_000_000);
    await expect(inTransaction(em(), (tx) => acceptQuote(tx, deps, fx.users.taker!, id, b.ack.quote_id!))).rejects.toMatchObject({
      code: 'ODDS_BELOW_MINIMUM',
    });
    await expect(inTransaction(em(), (tx) => acceptQuote(tx, deps, fx.users.mm1!, id, a.ack.quote_id!))).rejects.toMatchObject({
      code: 'RFQ_NOT_FOUND',
    });
    fx.clock += 5_000; // manual: no quote window
    const filled = await inTransaction(em(), (tx) => acceptQuote(tx, deps, fx.users.taker!, id, a.ack.quote_id!));
    expect(filled.rfq.rfq).toMatchObject({ status: 'filled', oddsBps: 19_000 });
    await expectFresh(filled.rfq);
    expect(filled.rfq.quotes.find((q) => q.id === b.ack.quote_id)).toMatchObject({ status: 'not_filled', reason: 'outbid' });
    await expect(inTransaction(em(), (tx) => acceptQuote(tx, deps, fx.users.taker!, id, a.ack.quote_id!))).rejects.toMatchObject({
      code: 'RFQ_NOT_OPEN',
    });
    await expect(cancelRfq(em(), deps, fx.users.taker!, id)).rejects.toMatchObject({ code: 'RFQ_NOT_OPEN' });

    const c = await create(order(), 'manual');
    const before = await balances('taker');
    const cancelled = await cancelRfq(em(), deps, fx.users.taker!, c.rfq.rfq.id);
    expect(cancelled.rfq.rfq).toMatchObject({ status: 'cancelled', closeReason: 'cancelled' });
    await expectFresh(cancelled.rfq);
    expect((await balances('taker')).available - before.available).toBe(10_000_000n);
    expect((await cancelRfq(em(), deps, fx.users.taker!, c.rfq.rfq.id)).events).toEqual([]);
    expect(await checkLedger(em())).toEqual([]);
  });

  it('expires a manual RFQ at its deadline via the due list, and lists a taker`s RFQs page by page', async () => {
    const r = await create(order({ deadline_ms: fx.clock + 2_000 }), 'manual');
    expect(await dueRfqIds(em(), fx.clock, 250, 100)).not.toContain(r.rfq.rfq.id);
    fx.clock += 2_300;
    expect(await dueRfqIds(em(), fx.clock, 250, 100)).toContain(r.rfq.rfq.id);
    const closed = await closeRfq(em(), deps, r.rfq.rfq.id);
    expect(closed.rfq.rfq).toMatchObject({ status: 'expired', closeReason: 'deadline' });

    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listOwnRfqs(em(), fx.users.taker!, { limit: 2, cursor });
      for (const x of page.rfqs) seen.add(x.rfq.id);
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    const total = await db(em())
      .selectFrom('rfqs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('taker_user_id', '=', fx.users.taker!)
      .executeTakeFirstOrThrow();
    expect(seen.size).toBe(Number(total.n));
    expect(pages).toBeGreaterThan(1);
    await expect(listOwnRfqs(em(), fx.users.taker!, { limit: 2, cursor: 'eyJrIjoicmZxIn0.AAAAAAAAAAAAAAAAAAAAAA' })).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
    await expect(getOwnRfq(em(), fx.users.mm1!, r.rfq.rfq.id)).rejects.toMatchObject({ code: 'RFQ_NOT_FOUND' });
  });
});

describe('races', () => {
  it('a maker with collateral for 3 liabilities is filled at most 3 times, whatever closes at once', async () => {
    const thin = privateKeyToAccount('0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a');
    const thinUser = await userWith(thin.address, 3_000_000n); // 3 liabilities of 1 USDC (1 at 2.0)
    const roomy: RfqDeps = { ...deps, settings: { ...deps.settings, maxOpenPerUser: 10 } };
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const o = order({ stake_micros: 1_000_000, order_type: 'FOK' });
      const r = await inTransaction(em(), async (tx) =>
        createRfq(tx, roomy, {
          userId: fx.users.taker!,
          sessionAddress: TAKER!.address,
          order: o,
          signature: await sign(o),
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      );
      ids.push(r.rfq.rfq.id);
      expect((await quote(thin, r.rfq.rfq.id, 20_000, 1_000_000)).ack.accepted).toBe(true); // each fits the unlocked read
    }
    fx.clock += 600;
    const closed = await Promise.all(ids.map((id) => closeRfq(em(), roomy, id)));
    const statuses = closed.map((c) => c.rfq.rfq.status);
    expect(statuses.filter((s) => s === 'filled')).toHaveLength(3);
    expect(closed.filter((c) => c.rfq.rfq.status === 'expired').map((c) => c.rfq.quotes[0]!.reason)).toEqual([
      'insufficient_collateral',
      'insufficient_collateral',
      'insufficient_collateral',
    ]);
    expect(await userBalances(em(), thinUser)).toEqual({ available: 0n, reserved: 3_000_000n, appToken: 0n });
    expect(await checkLedger(em())).toEqual([]);
  });
});
