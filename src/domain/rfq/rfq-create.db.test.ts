// Medium tier: creating RFQs on real PostgreSQL: checks in order, the stake's reservation, nonces, the open-RFQ
// limit under concurrent creates, the known windows. Setup in src/testing/rfq-db.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkLedger } from '../ledger/ledger.js';
import { cancelRfq, createRfq } from './api.js';
import type { RfqDeps } from './deps.js';
import type { RfqOrderJson } from './typed-data.js';
import { balances, create, deps, em, expectFresh, fx, MM1, order, sign, T0, TAKER, useRfqDb } from '../../testing/rfq-db.js';
import { inTransaction } from '../../db/unit-of-work.js';

useRfqDb();

describe('createRfq', () => {
  it('reserves the stake with the RFQ, and a retry of the same request returns the same RFQ', async () => {
    const before = await balances('taker');
    const o = order();
    const key = randomUUID();
    const signature = await sign(o);
    const input = {
      userId: fx.users.taker!,
      sessionAddress: TAKER!.address.toLowerCase(),
      order: o,
      signature,
      fillMode: 'best' as const,
      idempotencyKey: key,
    };
    const r = await inTransaction(em(), (tx) => createRfq(tx, deps, input));
    expect(r.rfq.rfq).toMatchObject({
      status: 'open',
      stakeMicros: 10_000_000n,
      quoteDeadlineMs: fx.clock + 500,
      takerAddress: TAKER!.address.toLowerCase(),
    });
    expect(r.events).toEqual([
      expect.objectContaining({
        topic: 'rfq.open',
        frame: expect.objectContaining({ type: 'rfq', rfq_id: r.rfq.rfq.id, stake_micros: '10000000' }),
      }),
    ]);
    expect(JSON.stringify(r.events[0])).not.toContain('min_odds');
    await expectFresh(r.rfq);
    const after = await balances('taker');
    expect(before.available - after.available).toBe(10_000_000n);
    expect(after.reserved - before.reserved).toBe(10_000_000n);

    const again = await inTransaction(em(), (tx) => createRfq(tx, deps, input));
    expect(again.rfq.rfq.id).toBe(r.rfq.rfq.id);
    expect(again.events).toEqual([]);
    await expect(inTransaction(em(), (tx) => createRfq(tx, deps, { ...input, idempotencyKey: randomUUID() }))).rejects.toMatchObject({
      code: 'NONCE_REUSED',
      status: 409,
    });
    expect((await balances('taker')).reserved).toBe(after.reserved);
    expect(await checkLedger(em())).toEqual([]);
  });
});

describe('createRfq: refusals', () => {
  it('refuses in the order of 3.12', async () => {
    await expect(create(order({ stake_micros: 100 }))).rejects.toMatchObject({ code: 'INVALID_ORDER', status: 422 });
    await expect(create(order({ deadline_ms: fx.clock + 200 }))).rejects.toMatchObject({ code: 'ORDER_EXPIRED' });
    const o = order();
    await expect(
      inTransaction(em(), async (tx) =>
        createRfq(tx, deps, {
          userId: fx.users.taker!,
          sessionAddress: MM1!.address,
          order: o,
          signature: await sign(o),
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      ),
    ).rejects.toMatchObject({ code: 'TAKER_MISMATCH', status: 422 });
    await expect(create(order({ legs: [{ market_id: 999_999_999, direction: 'up' }] }))).rejects.toMatchObject({
      code: 'MARKET_NOT_FOUND',
      status: 404,
    });
    const tampered = order();
    const sig = await sign(tampered);
    await expect(
      inTransaction(em(), (tx) =>
        createRfq(tx, deps, {
          userId: fx.users.taker!,
          sessionAddress: TAKER!.address,
          order: { ...tampered, stake_micros: tampered.stake_micros + 1 },
          signature: sig,
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      ),
    ).rejects.toMatchObject({ code: 'INVALID_SIGNATURE' });
    await expect(create(order({ stake_micros: 1_000_000_000 }))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 422 });
    const saved = fx.clock;
    fx.clock = T0 + 600_000 - 10_000; // the window's betting close
    await expect(create(order({ deadline_ms: fx.clock + 30_000 }))).rejects.toMatchObject({ code: 'BETTING_CLOSED', status: 409 });
    fx.clock = saved;
  });
});

describe('createRfq: limits and windows', () => {
  it('allows RFQ_MAX_OPEN_PER_USER open RFQs, even when created concurrently', async () => {
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => create(order(), 'manual')));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(3);
    expect(refused.map((r) => (r.reason as { code: string }).code)).toEqual(['OPEN_RFQ_LIMIT', 'OPEN_RFQ_LIMIT', 'OPEN_RFQ_LIMIT']);
    expect((refused[0]!.reason as { details: unknown }).details).toEqual({ open_rfqs: 3, limit: 3 });
  });

  it('remembers the windows it has seen (the API`s rfqDepsOf), never an unknown one', async () => {
    const windows = new Map();
    const cached: RfqDeps = { ...deps, windows };
    const run = async (o: RfqOrderJson) => {
      const signature = await sign(o);
      return inTransaction(em(), (tx) =>
        createRfq(tx, cached, {
          userId: fx.users.taker!,
          sessionAddress: TAKER!.address,
          order: o,
          signature,
          fillMode: 'best',
          idempotencyKey: randomUUID(),
        }),
      );
    };
    const first = await run(order());
    expect([...windows.keys()]).toEqual([fx.markets[0]]);
    const second = await run(order()); // from the map: the same legs as a lookup gives
    expect(second.rfq.rfq.legs).toEqual(first.rfq.rfq.legs);
    await expect(run(order({ legs: [{ market_id: 999_999_998, direction: 'up' }] }))).rejects.toMatchObject({ code: 'MARKET_NOT_FOUND' });
    expect([...windows.keys()]).toEqual([fx.markets[0]]);
    for (const r of [first, second]) await cancelRfq(em(), deps, fx.users.taker!, r.rfq.rfq.id);
  });
});
