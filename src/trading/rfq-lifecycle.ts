// The RFQ lifecycle's orchestration (docs/trading.md, "Following one RFQ through the code"): one function per
// step (create, quote, close, accept, cancel, sweep, settle), each the same sequence: the rule in src/domain
// reads, decides and writes in one transaction and returns its events (RfqEvent, src/domain/rfq/events.ts);
// this module publishes them after commit (publishRfqEvents, src/trading/rfq-events.ts). It is the only
// publisher of RFQ events: the HTTP handlers, the WebSocket stream and the workers call these functions and
// never touch the bus for an RFQ.
//
// Two steps run inside a transaction their caller owns (typed Tx: src/db/unit-of-work.ts; an idempotency key's,
// src/http/idempotent.ts): `create` and `accept` write in that transaction, and `created` / `accepted` publish
// once it has committed (first request only: a replay wrote nothing).
import type { Logger } from 'pino';
import type { Bus } from '../bus/bus.js';
import type { Em } from '../db/orm.js';
import type { Tx } from '../db/unit-of-work.js';
import type { ResolutionOutcome } from '../db/vocabulary.js';
import { settleWindow } from '../domain/positions/settle.js';
import {
  acceptQuote,
  cancelQuote,
  cancelRfq,
  checkOrderSignature,
  createRfq,
  dueRfqIds,
  rejectQuote,
  submitQuote,
  withdrawAllQuotes,
  type CreateRfqInput,
  type QuoteAck,
  type QuoteInput,
  type QuoteUnusable,
  type RfqWrite,
} from '../domain/rfq/api.js';
import type { RfqDeps } from '../domain/rfq/deps.js';
import type { RfqWithQuotes } from '../domain/rfq/records.js';
import type { RfqOrderJson, Verification } from '../domain/rfq/typed-data.js';
import { createRfqCloser, publishRfqEvents } from './rfq-events.js';

type Log = Pick<Logger, 'warn'>;

export interface RfqLifecycleDeps {
  forkDb: () => Em;
  bus: Bus;
  rfq: RfqDeps;
  log: Logger;
  /** Every quote's ack, as answered (src/service/rfq.ts counts them: rfq_quote_acks_total{result}). */
  quoteAnswered?: (ack: QuoteAck) => void;
}

export interface RfqLifecycle {
  /** The order's signature check, to run before create's transaction opens (CreateRfqInput.signatureCheck). */
  checkOrder(order: RfqOrderJson, signature: string): Verification;
  /** create, in the caller's transaction (the idempotency key's); `created` publishes after its commit. */
  create(tx: Tx, input: CreateRfqInput): Promise<RfqWrite>;
  /** After the create committed: publish `rfq.open`; a manual-mode RFQ expires on this process's timer. */
  created(w: RfqWrite, log?: Log): Promise<void>;
  /** Best mode: closes at the end of the quote window (this process's timer); null when the close failed. */
  closeAtQuoteDeadline(r: RfqWithQuotes): Promise<RfqWithQuotes | null>;
  /** close now (the sweeper, a timer): closeRfq, then publish what changed; null when it failed (logged). */
  close(rfqId: string): Promise<RfqWithQuotes | null>;
  /** accept (manual mode), in the caller's transaction; `accepted` publishes after its commit. */
  accept(tx: Tx, userId: string, rfqId: string, quoteId: string): Promise<RfqWrite>;
  accepted(w: RfqWrite, log?: Log): Promise<void>;
  /** The accepted quote cannot fill: mark it dead in a transaction of its own, and publish. Never throws. */
  rejectUnusable(em: Em, rfqId: string, err: QuoteUnusable, log?: Log): Promise<void>;
  /** cancel by the taker: its own transaction, then publish. */
  cancel(em: Em, userId: string, rfqId: string, log?: Log): Promise<RfqWrite>;
  /**
   * quote (a maker's WebSocket frame, or the demo maker): record it, hand the ack to `answer` (the maker
   * hears its ack before any frame the quote causes), then publish. Returns the ack.
   */
  quote(em: Em, makerWallet: string, q: QuoteInput, answer: (ack: QuoteAck) => void, log?: Log, closesAtMs?: number): Promise<QuoteAck>;
  /** quote_cancel: withdraw one live quote, hand the ack to `answer`, then publish. */
  cancelQuote(em: Em, makerWallet: string, rfqId: string, quoteId: string, answer: (ack: QuoteAck) => void, log?: Log): Promise<QuoteAck>;
  /** Cancel on disconnect: withdraw every live quote of the wallet, publish; how many were withdrawn. */
  withdrawQuotes(em: Em, makerWallet: string, log?: Log): Promise<number>;
  /**
   * A maker was removed (its quotes withdrawn in the removal's transaction): `mm.removed` ends its connections
   * and cached sessions on every other process, and `rfq.quote` wakes those RFQs' long-polls.
   */
  makerRemoved(wallet: string, rfqIds: readonly string[], log?: Log): Promise<void>;
  /** sweep: close every RFQ overdue by more than `graceMs` (at most `limit`), one close at a time. */
  sweep(nowMs: number, graceMs: number, limit: number): Promise<{ ids: string[]; failed: number }>;
  /** settle a resolved window's positions, batch by batch, publishing each batch's frames after its commit. */
  settle(marketId: number, outcome: ResolutionOutcome, nowMs: number): Promise<{ settled: number; touched: number; batches: number }>;
  /** Cancels the pending close timers (shutdown); the sweeper closes what they would have. */
  stop(): void;
}

export function createRfqLifecycle(deps: RfqLifecycleDeps): RfqLifecycle {
  const closer = createRfqCloser(deps);
  const publish = (events: Parameters<typeof publishRfqEvents>[1], log: Log = deps.log) => publishRfqEvents(deps.bus, events, log);
  return {
    checkOrder: (order, signature) => checkOrderSignature(deps.rfq, order, signature),
    create: (tx, input) => createRfq(tx, deps.rfq, input),
    async created(w, log) {
      await publish(w.events, log);
      // Manual mode expires at expires_at_ms on this process's timer; nobody awaits it.
      const r = w.rfq.rfq;
      if (r.status === 'open' && r.fillMode === 'manual') void closer.closeAt(r.id, r.expiresAtMs);
    },
    closeAtQuoteDeadline: (r) => closer.closeAt(r.rfq.id, r.rfq.quoteDeadlineMs),
    close: (rfqId) => closer.close(rfqId),
    accept: (tx, userId, rfqId, quoteId) => acceptQuote(tx, deps.rfq, userId, rfqId, quoteId),
    accepted: (w, log) => publish(w.events, log),
    async rejectUnusable(em, rfqId, err, log = deps.log) {
      await rejectQuote(em, rfqId, err.quoteId, err.reason).then(
        (events) => publish(events, log),
        (e: unknown) => log.warn({ err: e, quote_id: err.quoteId }, 'could not mark a quote that cannot fill as rejected'),
      );
    },
    async cancel(em, userId, rfqId, log) {
      const w = await cancelRfq(em, deps.rfq, userId, rfqId);
      await publish(w.events, log);
      return w;
    },
    async quote(em, makerWallet, q, answer, log, closesAtMs) {
      const { ack, events } = await submitQuote(em, deps.rfq, makerWallet, q, closesAtMs);
      answer(ack);
      deps.quoteAnswered?.(ack);
      await publish(events, log);
      return ack;
    },
    async cancelQuote(em, makerWallet, rfqId, quoteId, answer, log) {
      const { ack, events } = await cancelQuote(em, makerWallet, rfqId, quoteId);
      answer(ack);
      await publish(events, log);
      return ack;
    },
    async withdrawQuotes(em, makerWallet, log) {
      const { withdrawn, events } = await withdrawAllQuotes(em, makerWallet, 'disconnected');
      await publish(events, log);
      return withdrawn;
    },
    async makerRemoved(wallet, rfqIds, log = deps.log) {
      await Promise.all([
        deps.bus.publish('mm.removed', { wallet: wallet.toLowerCase() }).catch((err: unknown) => {
          log.warn({ err, wallet }, 'could not publish mm.removed; other processes end the connections at their next heartbeat tick');
        }),
        publish(
          rfqIds.map((rfqId) => ({ topic: 'rfq.quote', rfqId })),
          log,
        ),
      ]);
    },
    async sweep(nowMs, graceMs, limit) {
      const ids = await dueRfqIds(deps.forkDb(), nowMs, graceMs, limit);
      let failed = 0;
      // One at a time: each close is its own short transaction; a failure (null, logged by the closer) is
      // retried at the next tick, since the RFQ is still due.
      for (const id of ids) if (!(await closer.close(id))) failed += 1;
      return { ids, failed };
    },
    settle: (marketId, outcome, nowMs) => settleWindow(deps.forkDb(), marketId, outcome, nowMs, { onBatch: (b) => publish(b.events) }),
    stop: () => closer.stop(),
  };
}
