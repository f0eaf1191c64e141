// The idempotency mechanism (src/domain/idempotency.ts) around a retryable write's handler.
//
// idempotentWrite(): exactly once by construction. The key's claim, the write and the stored outcome
// commit in one transaction; a replay with the same body answers the stored status and body with
// `Idempotent-Replayed: true`. A write whose state moves on after commit (a deposit or withdrawal being
// settled) stores its resource id, and every answer, first or replayed, is `answer()`: the resource's
// current state. An error after commit never undoes the write: when `answer()` fails for a reason other
// than a domain rejection (the database went away while waiting), the stored outcome is the answer.

import type { Operations } from '../../generated/openapi/operations.gen.js';
import { AppError } from '../domain/errors.js';
import { errorBody, fingerprint, once, type IdempotencyScope } from '../domain/idempotency.js';
import { failpoint } from '../failpoints.js';
import { NO_STORE, type Handler, type HandlerRequest, type HandlerResponse, type OperationId, type Reply, type RequestContext } from './handler.js';

/** The operations whose body carries an `idempotency_key`. */
export type KeyedOperationId = { [Id in OperationId]: Operations[Id]['body'] extends { idempotency_key: string } ? Id : never }[OperationId];

const REPLAYED = { 'Idempotent-Replayed': 'true', ...NO_STORE };

export interface IdempotentWrite<Id extends KeyedOperationId, T> {
  /** Who the key belongs to (e.g. `user:<id>`). */
  scope: (req: HandlerRequest<Id>, ctx: RequestContext) => string;
  /** What must be equal for a replay (default: the body); include the path's target where it has one. */
  fingerprint?: (req: HandlerRequest<Id>) => unknown;
  /** The write; `tx.db` is the key's transaction. Throw a 4xx AppError to reject: it is stored and replayed. */
  write: (req: HandlerRequest<Id>, tx: RequestContext) => Promise<T>;
  /** The reply stored with the key, and the first answer unless `answer` is given. */
  outcome: (value: T, req: HandlerRequest<Id>) => Reply<Id>;
  /** The id of what the write made (an operation, an entry, a ledger transaction), stored with the key. */
  resourceOf?: (value: T) => string;
  /**
   * After commit, for the first request only (never a replay), before `answer`: what must follow the write
   * once it is durable (publishing its events). Must not throw: the write has happened whatever it does.
   */
  committed?: (value: T, req: HandlerRequest<Id>, ctx: RequestContext) => Promise<void>;
  /**
   * After commit, for the first request and every replay of a stored resource: the live answer. `written`
   * is what the write returned, on the first request only (a replay has only the resource id).
   */
  answer?: (req: HandlerRequest<Id>, ctx: RequestContext, resourceId: string, written?: T) => Promise<Reply<Id>>;
}

export function idempotentWrite<Id extends KeyedOperationId, T>(spec: IdempotentWrite<Id, T>): Handler<Id> {
  return async (req, ctx) => {
    const body: { idempotency_key: string } = req.body;
    const s: IdempotencyScope = { scope: spec.scope(req, ctx), operation: req.operationId, key: body.idempotency_key };
    const print = fingerprint((spec.fingerprint ?? ((r: HandlerRequest<Id>) => r.body))(req));
    const inTx = (db: RequestContext['db']): RequestContext => ({
      db,
      log: ctx.log,
      auth: ctx.auth,
      requestId: ctx.requestId,
      clientIp: ctx.clientIp,
      audit: ctx.audit,
    });
    const r = await once(
      ctx.db,
      s,
      print,
      (tx) => spec.write(req, inTx(tx)),
      (v) => {
        const reply = spec.outcome(v, req) as HandlerResponse;
        return { status: reply.status, body: reply.body, resourceId: spec.resourceOf?.(v) ?? null };
      },
    );
    const { outcome } = r;
    if (!r.replayed && spec.committed) await spec.committed(r.value, req, ctx);
    // A stored reply is one this operation's handler (or its error mapping) produced earlier.
    const stored = (headers: Record<string, string>) => ({ status: outcome.status, body: outcome.body, headers }) as unknown as Reply<Id>;
    if (!spec.answer || !outcome.resourceId || outcome.status >= 400) {
      if (r.replayed) return stored(REPLAYED);
      failpoint(`after-commit:${req.operationId}`);
      return spec.outcome(r.value, req);
    }
    try {
      if (!r.replayed) failpoint(`after-commit:${req.operationId}`);
      const res = await spec.answer(req, ctx, outcome.resourceId, r.replayed ? undefined : r.value);
      return r.replayed ? { ...res, headers: { ...res.headers, ...REPLAYED } } : res;
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        if (!r.replayed) throw err; // the first answer of a rejection: the one error mapper writes it
        return { status: err.status, body: errorBody(err), headers: REPLAYED } as unknown as Reply<Id>;
      }
      // The write committed; only the wait for its outcome failed. Answer what is known for certain.
      ctx.log.warn({ err, resource_id: outcome.resourceId }, 'the write committed but its outcome could not be read; answering the stored outcome');
      return stored(r.replayed ? REPLAYED : NO_STORE);
    }
  };
}
