// The close timer of a best-mode RFQ (createRfqCloser.closeAt): a timer that fires before the RFQ's due
// time on the service's clock (timers and Date.now are different clocks; a timer can fire a millisecond
// early) arms again instead of answering the still-open RFQ, so a best-mode POST always answers terminal.
// Here the service's clock is a fake one that stands still while the timers run.
import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db } from '../db/schema.js';
import { ensureWindows } from '../domain/markets/markets.js';
import { createRfq } from '../domain/rfq/api.js';
import { orderTypedData, rfqDomainOf } from '../domain/rfq/typed-data.js';
import { createLogger } from '../logger.js';
import { fundedUser } from '../testing/funding.js';
import { migratedOrm, type MigratedOrm } from '../testing/orm.js';
import { rfqTestDeps } from '../testing/position-fill.js';
import { createBus } from '../bus/create.js';
import { createRfqCloser } from './rfq-events.js';
import { inTransaction } from '../db/unit-of-work.js';

let t: MigratedOrm;
let market: number;
beforeAll(async () => {
  t = await migratedOrm('rfqcloser');
  const start = Math.floor(Date.now() / 300_000) * 300_000 + 300_000;
  await ensureWindows(t.orm.em.fork(), [{ asset: 'BTC', durationSecs: 300, startAtMs: start }]);
  const row = await db(t.orm.em.fork())
    .selectFrom('markets')
    .select('market_id')
    .where('kind', '=', 'rfq_window')
    .executeTakeFirstOrThrow();
  market = Number(row.market_id);
});
afterAll(async () => t?.close());

it('a timer that fires before the due time on the service clock arms again; the answer is the terminal RFQ', async () => {
  let clock = Date.now();
  const deps = { ...rfqTestDeps(10_000, 50), now: () => clock };
  const taker = privateKeyToAccount(generatePrivateKey());
  const userId = await fundedUser(() => t.orm.em.fork(), taker.address, 10_000_000n);
  const order = {
    taker: taker.address,
    legs: [{ market_id: market, direction: 'up' as const }],
    stake_micros: 1_000_000,
    min_odds_bps: 15_000,
    order_type: 'FOK' as const,
    nonce: 1,
    deadline_ms: clock + 20_000,
  };
  const signature = await taker.signTypedData(orderTypedData(rfqDomainOf(deps.settings), order));
  const created = await inTransaction(t.orm.em.fork(), (tx) =>
    createRfq(tx, deps, { userId, sessionAddress: taker.address, order, signature, fillMode: 'best', idempotencyKey: randomUUID() }),
  );
  const bus = await createBus({ prefix: 'closer', redisUrl: undefined, databaseUrl: undefined });
  const closer = createRfqCloser({ forkDb: () => t.orm.em.fork(), bus, rfq: deps, log: createLogger('silent') });
  try {
    const answer = closer.closeAt(created.rfq.rfq.id, created.rfq.rfq.quoteDeadlineMs);
    // The 50 ms timer fires (more than once) while the service's clock has not reached the due time.
    await new Promise((r) => setTimeout(r, 200));
    clock = created.rfq.rfq.quoteDeadlineMs;
    const r = await answer;
    expect(r?.rfq).toMatchObject({ status: 'expired', closeReason: 'no_quotes' });
  } finally {
    closer.stop();
    await bus.close();
  }
});
