// A quote handled after its RFQ stopped taking quotes, when the process heard the RFQ's deadlines on the bus
// (src/ws/rfq-closing-times.ts): answered `rfq_closed` with no SQL statement, as the statement itself would answer
// it; a quote with a client_quote_id still takes the statement (a replay gets its first ack). docs/trading.md, "Quotes".
import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { fundedUser } from '../../testing/funding.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { rfqTestDeps } from '../../testing/position-fill.js';
import { countStatements } from '../../testing/statement-counter.js';
import { ensureWindows } from '../markets/markets.js';
import { createRfq, submitQuote } from './api.js';
import type { RfqDeps } from './deps.js';
import { orderTypedData, quoteTypedData, rfqDomainOf, type RfqOrderJson } from './typed-data.js';

const statementsSent = countStatements();
let t: MigratedOrm;
let clock = 0;
let market = 0;
const deps: RfqDeps = { ...rfqTestDeps(10_000, 500), now: () => clock, windows: new Map() };
const domain = rfqDomainOf(deps.settings);
const em = () => t.orm.em.fork();
const taker = privateKeyToAccount(generatePrivateKey());
const maker = privateKeyToAccount(generatePrivateKey());
let takerId = '';
let nonce = 0;

beforeAll(async () => {
  t = await migratedOrm('latequotes');
  const start = Math.floor(Date.now() / 300_000) * 300_000 + 300_000;
  clock = start + 1000;
  await ensureWindows(em(), [{ asset: 'BTC', durationSecs: 300, startAtMs: start }]);
  market = Number(
    (await db(em()).selectFrom('markets').select('market_id').where('kind', '=', 'rfq_window').executeTakeFirstOrThrow()).market_id,
  );
  takerId = await fundedUser(em, taker.address.toLowerCase(), 100_000_000n);
  await fundedUser(em, maker.address.toLowerCase(), 100_000_000n);
});
afterAll(async () => t?.close());

/** A best-mode RFQ; its quote deadline (deps' window after `clock`). */
async function openRfq(): Promise<{ id: string; quoteDeadlineMs: number }> {
  const order: RfqOrderJson = {
    taker: taker.address,
    legs: [{ market_id: market, direction: 'up' }],
    stake_micros: 1_000_000,
    min_odds_bps: 15_000,
    order_type: 'FOK',
    nonce: ++nonce,
    deadline_ms: clock + 30_000,
  };
  const signature = await taker.signTypedData(orderTypedData(domain, order));
  const w = await inTransaction(em(), (tx) =>
    createRfq(tx, deps, {
      userId: takerId,
      sessionAddress: taker.address,
      order,
      signature,
      fillMode: 'best',
      idempotencyKey: randomUUID(),
    }),
  );
  return { id: w.rfq.rfq.id, quoteDeadlineMs: w.rfq.rfq.quoteDeadlineMs };
}

async function signed(rfqId: string, over: { client_quote_id?: string } = {}) {
  const q = { rfq_id: rfqId, maker: maker.address, odds_bps: 20_000, max_fill_micros: 1_000_000, valid_until_ms: clock + 20_000 };
  return { ...q, ...over, signature: await maker.signTypedData(quoteTypedData(domain, q)) };
}

/** submitQuote at `at` (the process's clock), with what the bus told this process; the statements it sent. */
async function quoteAt(at: number, q: Awaited<ReturnType<typeof signed>>, closesAtMs?: number) {
  const saved = clock;
  clock = at;
  try {
    const s0 = statementsSent();
    const { ack } = await submitQuote(em(), deps, maker.address, q, closesAtMs);
    return { ack, statements: statementsSent() - s0 };
  } finally {
    clock = saved;
  }
}

describe('a quote handled after the RFQ stopped taking quotes', () => {
  it('is answered rfq_closed with no statement, the answer the statement gives without the closing time', async () => {
    const r = await openRfq();
    const q = await signed(r.id);
    const late = await quoteAt(r.quoteDeadlineMs, q, r.quoteDeadlineMs);
    expect(late).toEqual({ ack: expect.objectContaining({ accepted: false, error: 'rfq_closed', rfq_id: r.id }), statements: 0 });
    const asBefore = await quoteAt(r.quoteDeadlineMs, q);
    expect(asBefore).toEqual({ ack: late.ack, statements: 1 });
  });

  it('before that time, takes the usual path and is recorded', async () => {
    const r = await openRfq();
    const onTime = await quoteAt(r.quoteDeadlineMs - 1, await signed(r.id), r.quoteDeadlineMs);
    expect(onTime).toEqual({ ack: expect.objectContaining({ accepted: true, error: null }), statements: 1 });
  });

  it('with a client_quote_id, takes the statement: the replay of an accepted quote gets its first ack', async () => {
    const r = await openRfq();
    const q = await signed(r.id, { client_quote_id: randomUUID() });
    const first = await quoteAt(r.quoteDeadlineMs - 1, q, r.quoteDeadlineMs);
    expect(first.ack.accepted).toBe(true);
    const replay = await quoteAt(r.quoteDeadlineMs + 5, q, r.quoteDeadlineMs);
    expect(replay).toEqual({ ack: first.ack, statements: 1 });
    const other = await quoteAt(r.quoteDeadlineMs + 5, await signed(r.id, { client_quote_id: randomUUID() }), r.quoteDeadlineMs);
    expect(other).toEqual({ ack: expect.objectContaining({ error: 'rfq_closed' }), statements: 1 });
  });

  it('gets rfq_closed before its signature is checked (as documented), and the free checks still come first', async () => {
    const r = await openRfq();
    const q = await signed(r.id);
    const forged = { ...q, odds_bps: 30_000 }; // signed for other odds: does not recover to the maker
    expect((await quoteAt(r.quoteDeadlineMs - 1, forged, r.quoteDeadlineMs)).ack.error).toBe('invalid_signature');
    expect(await quoteAt(r.quoteDeadlineMs, forged, r.quoteDeadlineMs)).toEqual({
      ack: expect.objectContaining({ error: 'rfq_closed' }),
      statements: 0,
    });
    expect((await quoteAt(r.quoteDeadlineMs, { ...q, odds_bps: 5 }, r.quoteDeadlineMs)).ack.error).toBe('invalid_odds');
    expect((await quoteAt(q.valid_until_ms, q, r.quoteDeadlineMs)).ack.error).toBe('quote_expired');
  });
});
