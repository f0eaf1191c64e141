// Wraps a handler of a retryable write in the idempotency mechanism (src/domain/idempotency.ts): the first
// request with a key runs the handler and its response (2xx, or a 4xx domain error such as 422) is stored;
// a replay with the same body answers the stored status and body with `Idempotent-Replayed: true`.
// An unexpected error (500/503) releases the key so the client's retry runs again.
import type { Orm } from '../db/orm.js';
import { AppError } from '../domain/errors.js';
import { claim, complete, fingerprint, release, type IdempotencyScope } from '../domain/idempotency.js';
import type { Handler, HandlerRequest, HandlerResponse } from './handler.js';

/**
 * `fingerprintOf` picks what must be equal for a replay (default: the body); a route whose path names the
 * target (a contest) includes it, so the same key sent to another contest is a reuse, not a replay.
 */
export function idempotent(
  orm: Orm,
  scopeOf: (req: HandlerRequest) => string,
  handler: Handler,
  fingerprintOf: (req: HandlerRequest) => unknown = (req) => req.body,
): Handler {
  return async (req) => {
    const body = req.body as { idempotency_key: string };
    const s: IdempotencyScope = { scope: scopeOf(req), operation: req.operationId, key: body.idempotency_key };
    const claimed = await claim(orm.em.fork(), s, fingerprint(fingerprintOf(req)));
    if (claimed.kind === 'replay') {
      return { status: claimed.status, body: claimed.body, headers: { 'Idempotent-Replayed': 'true', 'Cache-Control': 'no-store' } };
    }
    let res: HandlerResponse;
    try {
      res = await handler(req);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        await complete(orm.em.fork(), s, err.status, { error: err.message, code: err.code, details: err.details });
      } else {
        await release(orm.em.fork(), s).catch((e: unknown) => req.log.error({ err: e }, 'could not release an idempotency key'));
      }
      throw err;
    }
    if (res.status >= 500) await release(orm.em.fork(), s);
    else await complete(orm.em.fork(), s, res.status, res.body);
    return res;
  };
}
