// Wraps a handler of a retryable write in the idempotency mechanism (src/domain/idempotency.ts): the first
// request with a key runs the handler and its response (2xx, or a 4xx domain error such as 422) is stored;
// a replay with the same body answers the stored status and body with `Idempotent-Replayed: true`.
// An unexpected error (500/503) releases the key so the client's retry runs again.
import type { Operations } from '../../generated/openapi/operations.gen.js';
import { AppError } from '../domain/errors.js';
import { claim, complete, fingerprint, release, type IdempotencyScope } from '../domain/idempotency.js';
import type { Handler, HandlerRequest, HandlerResponse, OperationId, Reply, RequestContext } from './handler.js';

/** The operations whose body carries an `idempotency_key`. */
export type KeyedOperationId = { [Id in OperationId]: Operations[Id]['body'] extends { idempotency_key: string } ? Id : never }[OperationId];

/**
 * `fingerprintOf` picks what must be equal for a replay (default: the body); a route whose path names the
 * target (a contest) includes it, so the same key sent to another contest is a reuse, not a replay.
 */
export function idempotent<Id extends KeyedOperationId>(
  scopeOf: (req: HandlerRequest<Id>, ctx: RequestContext) => string,
  handler: Handler<Id>,
  fingerprintOf: (req: HandlerRequest<Id>) => unknown = (req) => req.body,
): Handler<Id> {
  return async (req, ctx) => {
    const body: { idempotency_key: string } = req.body;
    const s: IdempotencyScope = { scope: scopeOf(req, ctx), operation: req.operationId, key: body.idempotency_key };
    const claimed = await claim(ctx.db, s, fingerprint(fingerprintOf(req)));
    if (claimed.kind === 'replay') {
      // The stored reply is one this operation's handler (or its error mapping) produced earlier.
      const replay = { status: claimed.status, body: claimed.body, headers: { 'Idempotent-Replayed': 'true', 'Cache-Control': 'no-store' } };
      return replay as unknown as Reply<Id>;
    }
    let res: Reply<Id>;
    try {
      res = await handler(req, ctx);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        await complete(ctx.db, s, err.status, { error: err.message, code: err.code, details: err.details });
      } else {
        await release(ctx.db, s).catch((e: unknown) => ctx.log.error({ err: e }, 'could not release an idempotency key'));
      }
      throw err;
    }
    const out = res as HandlerResponse; // every reply is one
    if (out.status >= 500) await release(ctx.db, s);
    else await complete(ctx.db, s, out.status, out.body);
    return res;
  };
}
