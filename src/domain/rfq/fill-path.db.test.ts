// The fill path's cost and its behaviour under concurrency, on real PostgreSQL: the SQL statements and bus
// events of one best-mode fill are pinned (counted at pg's Client.query, BEGIN and COMMIT included); two
// makers quoting every RFQ fill in parallel without deadlocks and the ledger stays exact; the quote's
// one-statement collateral check rounds exactly as the fill does. See docs/fill-path.md.
import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { fundedUser } from '../../testing/funding.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { rfqTestDeps } from '../../testing/position-fill.js';
import { once, fingerprint } from '../idempotency.js';
import { checkLedger, userBalances } from '../ledger/ledger.js';
import { ensureWindows } from '../markets/markets.js';
import { payoutFor } from './allocate.js';
import { checkOrderSignature, closeRfq, createRfq, submitQuote } from './api.js';
import type { RfqDeps } from './deps.js';
import type { RfqEvent } from './events.js';
import { orderTypedData, quoteTypedData, rfqDomainOf, type RfqOrderJson } from './typed-data.js';
import { countStatements } from '../../testing/statement-counter.js';
import { buildOrder } from '../../testing/rfq-trade.js';

const statementsSent = countStatements();
async function counted<T>(f: () => Promise<T>): Promise<{ value: T; statements: number }> {
  const s0 = statementsSent();
  const value = await f();
  return { value, statements: statementsSent() - s0 };
}

let t: MigratedOrm;
let clock = 0;
let market = 0;
// As the API builds them (rfqDepsOf): with the process's map of known windows.
const deps: RfqDeps = { ...rfqTestDeps(10_000, 500), now: () => clock, windows: new Map() };
const domain = rfqDomainOf(deps.settings);
const em = () => t.orm.em.fork();
let nonce = 0;

beforeAll(async () => {
  t = await migratedOrm('fillpath');
  const start = Math.floor(Date.now() / 300_000) * 300_000 + 300_000;
  clock = start + 1000;
  await ensureWindows(em(), [{ asset: 'BTC', durationSecs: 300, startAtMs: start }]);
  market = Number(
    (await db(em()).selectFrom('markets').select('market_id').where('kind', '=', 'rfq_window').executeTakeFirstOrThrow()).market_id,
  );
});
afterAll(async () => t?.close());

async function party(micros: bigint) {
  const wallet = privateKeyToAccount(generatePrivateKey());
  return { wallet, userId: await fundedUser(em, wallet.address.toLowerCase(), micros) };
}
type Party = Awaited<ReturnType<typeof party>>;

/** createRfq under an idempotency key, as POST /v1/rfq runs it (claim, write, stored outcome: one transaction). */
async function create(taker: Party, over: Partial<RfqOrderJson> = {}) {
  const order = buildOrder(taker.wallet.address, [{ market_id: market, direction: 'up' }], {
    nonce: ++nonce,
    deadline_ms: clock + 30_000,
    ...over,
  });
  const signature = await taker.wallet.signTypedData(orderTypedData(domain, order));
  const key = randomUUID();
  const input = {
    userId: taker.userId,
    sessionAddress: taker.wallet.address,
    order,
    signature,
    fillMode: 'best' as const,
    idempotencyKey: key,
  };
  // The signature is checked before the transaction opens, as the handler does (src/http/handlers/rfq-taker.ts).
  const signatureCheck = checkOrderSignature(deps, order, signature);
  expect(signatureCheck.ok).toBe(true);
  const r = await once(
    em(),
    { scope: `user:${taker.userId}`, operation: 'createRfq', key },
    fingerprint(input),
    (tx) => createRfq(tx, deps, { ...input, signatureCheck }),
    (w) => ({ status: 201, body: { rfq_id: w.rfq.rfq.id }, resourceId: w.rfq.rfq.id }),
  );
  if (r.replayed) throw new Error('unexpected replay');
  return r.value;
}

async function quote(maker: Party, rfqId: string, oddsBps: number, maxFill: number) {
  const q = { rfq_id: rfqId, maker: maker.wallet.address, odds_bps: oddsBps, max_fill_micros: maxFill, valid_until_ms: clock + 20_000 };
  const signature = await maker.wallet.signTypedData(quoteTypedData(domain, q));
  return submitQuote(em(), deps, maker.wallet.address, { ...q, signature });
}

describe('one best-mode fill', () => {
  it('costs 10 SQL statements (create 5, quote 1, close 4) and 2 bus events', async () => {
    const taker = await party(100_000_000n);
    const maker = await party(100_000_000n);
    // Warm-up: the first fill of a user creates its reserved account and looks its window up.
    const first = await create(taker);
    await quote(maker, first.rfq.rfq.id, 20_000, 1_000_000);
    clock += 600;
    expect((await closeRfq(em(), deps, first.rfq.rfq.id)).rfq.rfq.status).toBe('filled');
    clock -= 600;
    const events: RfqEvent[] = [];
    const c = await counted(() => create(taker));
    events.push(...c.value.events);
    const q = await counted(() => quote(maker, c.value.rfq.rfq.id, 20_000, 1_000_000));
    expect(q.value.ack.accepted).toBe(true);
    events.push(...q.value.events);
    clock += 600;
    const f = await counted(() => closeRfq(em(), deps, c.value.rfq.rfq.id));
    clock -= 600;
    expect(f.value.rfq.rfq.status).toBe('filled');
    events.push(...f.value.events);
    // create: BEGIN, key claim, rfq_create (taker's accounts locked, open count, insert, reserve posting), stored
    // outcome, COMMIT. quote: one autocommit statement. close: BEGIN, rfq_lock_for_close (RFQ FOR UPDATE, then its
    // quotes FOR UPDATE with the accounts read unlocked), one write statement (the accounts it posts to locked,
    // every write, the ledger postings and the makers' protection counters), COMMIT. Exact: fewer is progress to
    // pin here, more fails.
    expect({ create: c.statements, quote: q.statements, close: f.statements }).toEqual({ create: 5, quote: 1, close: 4 });
    expect(c.statements + q.statements + f.statements).toBeLessThanOrEqual(10);
    // rfq.open, and rfq.closed carrying the maker's quote_result (no rfq.quote for best mode, no mm.event per quote).
    expect(events.map((e) => e.topic)).toEqual(['rfq.open', 'rfq.closed']);
    const closedEvent = events[1]!;
    expect(closedEvent.topic === 'rfq.closed' && closedEvent.results.map((r) => [r.wallet, r.frame.status])).toEqual([
      [maker.wallet.address.toLowerCase(), 'filled'],
    ]);
  });
});

describe('concurrency', () => {
  it('two makers quoting every RFQ: the closes run in parallel without deadlocks, each fills, the ledger stays exact', async () => {
    const makers = [await party(1_000_000_000n), await party(1_000_000_000n)];
    const takers = await Promise.all(Array.from({ length: 8 }, () => party(100_000_000n)));
    const ids: string[] = [];
    for (const tk of takers) {
      for (let i = 0; i < 2; i++) {
        const r = await create(tk, { stake_micros: 3_000_000, order_type: 'IOC' });
        ids.push(r.rfq.rfq.id);
        // Each maker covers part of the stake: every fill takes both makers.
        for (const [k, m] of makers.entries()) expect((await quote(m, r.rfq.rfq.id, 20_000 + k * 1000, 2_000_000)).ack.accepted).toBe(true);
      }
    }
    clock += 600;
    const closed = await Promise.all(ids.map((id) => closeRfq(em(), deps, id)));
    clock -= 600;
    expect(closed.map((c) => c.rfq.rfq.status)).toEqual(ids.map(() => 'filled'));
    expect(closed.every((c) => c.rfq.quotes.every((q) => q.status === 'filled'))).toBe(true);
    expect(await checkLedger(em())).toEqual([]);
    // 16 fills: 2 USDC at 2.1 (liability 2.2) and 1 USDC at 2.0 (liability 1) each.
    expect((await userBalances(em(), makers[1]!.userId)).reserved).toBe(16n * 2_200_000n);
    expect((await userBalances(em(), makers[0]!.userId)).reserved).toBe(16n * 1_000_000n);
  });
});

describe('quote collateral (one statement) rounds as the fill does', () => {
  it('accepts a maker whose available balance is exactly the rounded-up liability, refuses one micro less', async () => {
    const taker = await party(100_000_000n);
    const r = await create(taker, { stake_micros: 1_000_003 });
    const liability = payoutFor(1_000_003n, 15_001) - 1_000_003n; // 1,500,104.5003 -> 1,500,105
    expect(liability).toBe(500_102n);
    const exact = await party(liability);
    const short = await party(liability - 1n);
    expect((await quote(short, r.rfq.rfq.id, 15_001, 5_000_000)).ack.error).toBe('insufficient_collateral');
    expect((await quote(exact, r.rfq.rfq.id, 15_001, 5_000_000)).ack.accepted).toBe(true);
  });
});
