// A quote handled after its RFQ stopped taking quotes, when the process heard the RFQ's deadlines on the bus
// (src/ws/rfq-closing-times.ts): answered `rfq_closed` with no SQL statement, as the statement itself would answer
// it; a quote with a client_quote_id still takes the statement (a replay gets its first ack). docs/trading.md, "Quotes".
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { countStatements } from '../../testing/statement-counter.js';
import { create, deps, em, fx, MM1, order, signedQuote, useRfqDb } from '../../testing/rfq-db.js';
import { submitQuote, type QuoteInput } from './api.js';

useRfqDb();
const statementsSent = countStatements();

/** A best-mode RFQ: its id and quote deadline. */
async function openRfq() {
  const w = await create(order(), 'best');
  return { id: w.rfq.rfq.id, quoteDeadlineMs: w.rfq.rfq.quoteDeadlineMs };
}

/** submitQuote at `at` (the process's clock), with what the bus told this process; the statements it sent. */
async function quoteAt(at: number, q: QuoteInput, closesAtMs?: number) {
  const saved = fx.clock;
  fx.clock = at;
  try {
    const s0 = statementsSent();
    const { ack } = await submitQuote(em(), deps, MM1!.address, q, closesAtMs);
    return { ack, statements: statementsSent() - s0 };
  } finally {
    fx.clock = saved;
  }
}

describe('a quote handled after the RFQ stopped taking quotes', () => {
  it('is answered rfq_closed with no statement, the answer the statement gives without the closing time', async () => {
    const r = await openRfq();
    const q = await signedQuote(MM1, r.id, 20_000, 1_000_000);
    const late = await quoteAt(r.quoteDeadlineMs, q, r.quoteDeadlineMs);
    expect(late).toEqual({ ack: expect.objectContaining({ accepted: false, error: 'rfq_closed', rfq_id: r.id }), statements: 0 });
    expect(await quoteAt(r.quoteDeadlineMs, q)).toEqual({ ack: late.ack, statements: 1 });
  });

  it('before that time, takes the usual path and is recorded', async () => {
    const r = await openRfq();
    const onTime = await quoteAt(r.quoteDeadlineMs - 1, await signedQuote(MM1, r.id, 20_000, 1_000_000), r.quoteDeadlineMs);
    expect(onTime).toEqual({ ack: expect.objectContaining({ accepted: true, error: null }), statements: 1 });
  });

  it('with a client_quote_id, takes the statement: the replay of an accepted quote gets its first ack', async () => {
    const r = await openRfq();
    const q = await signedQuote(MM1, r.id, 20_000, 1_000_000, { client_quote_id: randomUUID() });
    const first = await quoteAt(r.quoteDeadlineMs - 1, q, r.quoteDeadlineMs);
    expect(first.ack.accepted).toBe(true);
    expect(await quoteAt(r.quoteDeadlineMs + 5, q, r.quoteDeadlineMs)).toEqual({ ack: first.ack, statements: 1 });
    const other = await signedQuote(MM1, r.id, 20_000, 1_000_000, { client_quote_id: randomUUID() });
    expect(await quoteAt(r.quoteDeadlineMs + 5, other, r.quoteDeadlineMs)).toEqual({
      ack: expect.objectContaining({ error: 'rfq_closed' }),
      statements: 1,
    });
  });

  it('gets rfq_closed before its signature is checked (as documented), and the free checks still come first', async () => {
    const r = await openRfq();
    const forged = await signedQuote(MM1, r.id, 20_000, 1_000_000, { badSig: true }); // another maker's signature
    expect((await quoteAt(r.quoteDeadlineMs - 1, forged, r.quoteDeadlineMs)).ack.error).toBe('invalid_signature');
    expect(await quoteAt(r.quoteDeadlineMs, forged, r.quoteDeadlineMs)).toEqual({
      ack: expect.objectContaining({ error: 'rfq_closed' }),
      statements: 0,
    });
    expect((await quoteAt(r.quoteDeadlineMs, { ...forged, odds_bps: 5 }, r.quoteDeadlineMs)).ack.error).toBe('invalid_odds');
    expect((await quoteAt(forged.valid_until_ms, forged, r.quoteDeadlineMs)).ack.error).toBe('quote_expired');
  });
});
