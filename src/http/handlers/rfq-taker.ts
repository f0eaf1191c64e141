// The taker's RFQ routes (spec/openapi.yaml; docs/trading.md, "The RFQ lifecycle"): create (best mode answers after the quote window), read with
// long-poll, list, accept a quote (manual mode), cancel. Each write is one step of the lifecycle in
// src/trading/rfq-lifecycle.ts (which publishes its events after commit and keeps this process's close
// timers); this module validates what the schema cannot (EIP-55) and runs the writes under their
// idempotency keys.
import { clamp } from '../../domain/page-limits.js';
import { isAddress } from 'viem';
import { AppError, ValidationFailed } from '../../domain/errors.js';
import { getOwnRfq, listOwnRfqs, QuoteUnusable, type RfqWrite } from '../../domain/rfq/api.js';
import type { RfqLifecycle } from '../../trading/rfq-lifecycle.js';
import { NO_STORE, type Handler, type HandlersFor, type RequestContext } from '../handler.js';
import { answerOnce, writeOnce } from '../idempotent.js';
import { requireUser } from './principal.js';
import { rfqToWire } from './rfq-wire.js';
import type { RfqWaiters } from '../../trading/rfq-wait.js';
import type { RfqAdmission } from '../admission.js';

export interface RfqTakerDeps {
  /** The lifecycle's steps; it closes RFQs at their due time on this process (the sweeper is the backstop). */
  trading: RfqLifecycle;
  waiters: RfqWaiters;
  /** Admission control (src/http/admission.ts): this handler reports how long each create took (`created`). */
  admission?: RfqAdmission;
}

type RfqTakerOperationId = 'createRfq' | 'getRfq' | 'listRfqs' | 'acceptRfqQuote' | 'cancelRfq';

export const RFQ_LIST_LIMIT = { min: 1, max: 100 } as const;

/** 503 TOO_MANY_WAITERS: the user already holds its share of long-polls on this process (fair shares). */
const tooManyWaiters = () =>
  new AppError(
    503,
    'TOO_MANY_WAITERS',
    'you already hold the most long-polls (wait_ms) one user may hold at once on this service; wait for one to answer, or poll without wait_ms',
    null,
    { 'Retry-After': '1' },
  );

export function rfqTakerHandlers(deps: RfqTakerDeps): HandlersFor<RfqTakerOperationId> {
  const { trading } = deps;
  return {
    createRfq: createRfq(deps),
    getRfq: getRfq(deps.waiters),
    listRfqs,
    acceptRfqQuote: acceptRfqQuote(trading),
    cancelRfq: async ({ params }, ctx) => {
      const w = await trading.cancel(ctx.db, requireUser(ctx.auth).userId, params.rfq_id, ctx.log);
      return { status: 200, body: rfqToWire(w.rfq), headers: NO_STORE };
    },
  };
}

const userScope = (ctx: RequestContext) => `user:${requireUser(ctx.auth).userId}`;
const read = (ctx: RequestContext, rfqId: string) => getOwnRfq(ctx.db, requireUser(ctx.auth).userId, rfqId);

const created = (w: RfqWrite) => ({
  reply: { status: 201 as const, body: rfqToWire(w.rfq), headers: { Location: `/v1/rfq/${w.rfq.rfq.id}`, ...NO_STORE } },
  resourceId: w.rfq.rfq.id,
});

// First answer and replays alike: the RFQ as it is now. Best mode waits for the end of the quote window
// (also on a replay whose first request died mid-window: closing is idempotent).
// The first answer starts from what the write returned and the close's own result: no read back.
const createAnswer = (trading: RfqLifecycle, ctx: RequestContext) => async (rfqId: string, written?: RfqWrite) => {
  let r = written?.rfq ?? (await read(ctx, rfqId));
  if (r.rfq.status === 'open' && r.rfq.fillMode === 'best') {
    r = (await trading.closeAtQuoteDeadline(r)) ?? (await read(ctx, rfqId));
  }
  return { status: 201 as const, body: rfqToWire(r), headers: { Location: `/v1/rfq/${rfqId}`, ...NO_STORE } };
};

const createRfq = ({ trading, admission }: RfqTakerDeps): Handler<'createRfq'> => {
  const createOne: Handler<'createRfq'> = async (req, ctx) => {
    const admittedAt = performance.now();
    // EIP-55 is checked before the idempotency claim: like any validation failure, it is not stored.
    if (!isAddress(req.body.order.taker, { strict: true })) {
      throw new ValidationFailed('order.taker is not a valid EVM address: a mixed-case address must carry a valid EIP-55 checksum', [
        { in: 'body', path: '/order/taker', message: 'fails the EIP-55 checksum (use all lowercase, or the checksummed form)' },
      ]);
    }
    const { body } = req;
    const user = requireUser(ctx.auth);
    // The signature's recovery before the key's transaction opens (its verdict is answered in the rules' order).
    const signatureCheck = trading.checkOrder(body.order, body.signature);
    const w = await writeOnce(
      req,
      ctx,
      { scope: userScope(ctx) },
      (tx) =>
        trading.create(tx.db, {
          signatureCheck,
          userId: user.userId,
          sessionAddress: user.address,
          order: body.order,
          signature: body.signature,
          fillMode: body.fill_mode ?? 'best',
          idempotencyKey: body.idempotency_key,
        }),
      created,
    );
    if (!w.replayed) {
      admission?.created(performance.now() - admittedAt); // a signal of admission control: how long creating took
      await trading.created(w.value, ctx.log);
    }
    return answerOnce(req, ctx, w, createAnswer(trading, ctx));
  };
  // Admitted before this runs (src/http/serve.ts calls admissionGate, src/http/admission.ts, before authentication):
  // an overloaded process refuses before recovering a signature, claiming the idempotency key or reserving
  // anything (503 OVERLOADED, Retry-After; docs/trading.md).
  return createOne;
};

const getRfq =
  (waiters: RfqWaiters): Handler<'getRfq'> =>
  async ({ params, query }, ctx) => {
    const waitMs = query.wait_ms ?? 0;
    // Registered before the first read, so a quote that commits in between still wakes this request.
    const waiter = waitMs > 0 ? waiters.register(params.rfq_id, requireUser(ctx.auth).userId) : null;
    try {
      let r = await read(ctx, params.rfq_id);
      const enough = query.min_quotes !== undefined && r.rfq.quotesReceived >= query.min_quotes;
      const outcome = waiter && r.rfq.status === 'open' && !enough ? await waiter.wait(waitMs) : null;
      if (outcome === 'user_full') throw tooManyWaiters();
      if (outcome === 'changed') r = await read(ctx, params.rfq_id);
      return { status: 200, body: rfqToWire(r), headers: NO_STORE };
    } finally {
      waiter?.cancel();
    }
  };

const listRfqs: Handler<'listRfqs'> = async ({ query }, ctx) => {
  const page = await listOwnRfqs(ctx.db, requireUser(ctx.auth).userId, {
    status: query.status,
    limit: clamp(query.limit ?? 50, RFQ_LIST_LIMIT.min, RFQ_LIST_LIMIT.max),
    cursor: query.cursor,
  });
  return { status: 200, body: { rfqs: page.rfqs.map(rfqToWire), next_cursor: page.nextCursor }, headers: NO_STORE };
};

const acceptRfqQuote =
  (trading: RfqLifecycle): Handler<'acceptRfqQuote'> =>
  async (req, ctx) => {
    const { params, body } = req;
    try {
      const w = await writeOnce(
        req,
        ctx,
        // The key is tied to the RFQ in the path: the same key sent to another RFQ is IDEMPOTENCY_KEY_REUSED.
        { scope: userScope(ctx), print: { rfq_id: params.rfq_id, body } },
        (tx) => trading.accept(tx.db, requireUser(tx.auth).userId, params.rfq_id, body.quote_id),
        (a) => ({ reply: { status: 200 as const, body: rfqToWire(a.rfq), headers: NO_STORE }, resourceId: a.rfq.rfq.id }),
      );
      if (!w.replayed) await trading.accepted(w.value, ctx.log);
      return await answerOnce(req, ctx, w, async (rfqId) => ({ status: 200, body: rfqToWire(await read(ctx, rfqId)), headers: NO_STORE }));
    } catch (err) {
      // The accept rolled back; the quote that cannot fill is marked dead in a transaction of its own.
      if (err instanceof QuoteUnusable) await trading.rejectUnusable(ctx.db, req.params.rfq_id.toLowerCase(), err, ctx.log);
      throw err;
    }
  };
