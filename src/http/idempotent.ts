// The idempotency mechanism (src/domain/idempotency.ts) around a retryable write's handler.
//
// Exactly once by construction, as two plain steps a handler calls in sequence: writeOnce() claims the key,
// and the write and the stored outcome commit in one transaction with it (a replay with the same body
// finds the stored status and body); then the handler does what follows a durable write (first request
// only) and answerOnce() answers, with `Idempotent-Replayed: true` on a replay. A write whose state moves
// on after commit (a deposit or withdrawal being settled) stores its resource id, and every answer, first
// or replayed, is the resource's current state. An error after commit never undoes the write: when that
// read fails for a reason other than a domain rejection (the database went away while waiting), the
// stored outcome is the answer.

import type { Operations } from '../../generated/openapi/operations.gen.js';
import { AppError } from '../domain/errors.js';
import { errorBody, fingerprint, once, type IdempotencyScope, type StoredOutcome } from '../domain/idempotency.js';
import type { Tx } from '../db/unit-of-work.js';
import { failpoint } from '../failpoints.js';
import type { TxContext } from './context.js';
import { NO_STORE, type HandlerRequest, type HandlerResponse, type OperationId, type Reply, type RequestContext } from './handler.js';

/** The operations whose body carries an `idempotency_key`. */
export type KeyedOperationId = {
  [Id in OperationId]: Operations[Id]['body'] extends { idempotency_key: string } ? Id : never;
}[OperationId];

const REPLAYED = { 'Idempotent-Replayed': 'true', ...NO_STORE };

/** What claiming a key and writing under it gave: the write's value (first request) or a stored outcome. */
export type KeyedWrite<Id extends KeyedOperationId, T> =
  { replayed: false; value: T; reply: Reply<Id>; outcome: StoredOutcome } | { replayed: true; outcome: StoredOutcome };

/**
 * Step 1 of a keyed write: claims the key and runs `write` in the key's transaction (`tx.db`), storing
 * `stored(value)`'s reply and resource id (the id of what the write made: an operation, an entry, a ledger
 * transaction) with the key; or finds the outcome an earlier request stored (a replay, nothing written).
 * `scope`: who the key belongs to (e.g. `user:<id>`); `print`: what must be equal for a replay (default:
 * the body; include the path's target where it has one). A 4xx AppError thrown by `write` is stored and
 * replayed. What must follow the write once it is durable (publishing its events) comes after this call,
 * for the first request only (`!w.replayed`), and must not throw: the write has happened whatever it does.
 */
export async function writeOnce<Id extends KeyedOperationId, T>(
  req: HandlerRequest<Id>,
  ctx: RequestContext,
  key: { scope: string; print?: unknown },
  write: (tx: TxContext) => Promise<T>,
  stored: (value: T) => { reply: Reply<Id>; resourceId?: string },
): Promise<KeyedWrite<Id, T>> {
  const body: { idempotency_key: string } = req.body;
  const s: IdempotencyScope = { scope: key.scope, operation: req.operationId, key: body.idempotency_key };
  const print = fingerprint(key.print === undefined ? req.body : key.print);
  const inTx = (db: Tx): TxContext => ({
    db,
    log: ctx.log,
    auth: ctx.auth,
    requestId: ctx.requestId,
    clientIp: ctx.clientIp,
    audit: ctx.audit,
  });
  let reply: Reply<Id> | undefined;
  const r = await once(
    ctx.db,
    s,
    print,
    (tx) => write(inTx(tx)),
    (v) => {
      const out = stored(v);
      reply = out.reply;
      const res = out.reply as HandlerResponse;
      return { status: res.status, body: res.body, resourceId: out.resourceId ?? null };
    },
  );
  return r.replayed ? { replayed: true, outcome: r.outcome } : { replayed: false, value: r.value, reply: reply!, outcome: r.outcome };
}

/**
 * Step 2 of a keyed write: the answer. Without `live` (or for a stored rejection, or a write that made no
 * resource): the write's reply, or the stored one on a replay. With `live`: the resource's current state,
 * first request and replays alike (`written`: what the write returned, first request only). When `live`
 * fails for a reason other than a domain rejection (the database went away while waiting), the stored
 * outcome is the answer: an error after commit never undoes the write.
 */
export async function answerOnce<Id extends KeyedOperationId, T>(
  req: HandlerRequest<Id>,
  ctx: RequestContext,
  w: KeyedWrite<Id, T>,
  live?: (resourceId: string, written?: T) => Promise<Reply<Id>>,
): Promise<Reply<Id>> {
  const { outcome } = w;
  // A stored reply is one this operation's handler (or its error mapping) produced earlier.
  const stored = (headers: Record<string, string>) => ({ status: outcome.status, body: outcome.body, headers }) as unknown as Reply<Id>;
  if (!live || !outcome.resourceId || outcome.status >= 400) {
    if (w.replayed) return stored(REPLAYED);
    failpoint(`after-commit:${req.operationId}`);
    return w.reply;
  }
  try {
    if (!w.replayed) failpoint(`after-commit:${req.operationId}`);
    const res = await live(outcome.resourceId, w.replayed ? undefined : w.value);
    return w.replayed ? { ...res, headers: { ...res.headers, ...REPLAYED } } : res;
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      if (!w.replayed) throw err; // the first answer of a rejection: the one error mapper writes it
      return { status: err.status, body: errorBody(err), headers: REPLAYED } as unknown as Reply<Id>;
    }
    // The write committed; only the wait for its outcome failed. Answer what is known for certain.
    ctx.log.warn(
      { err, resource_id: outcome.resourceId },
      'the write committed but its outcome could not be read; answering the stored outcome',
    );
    return stored(w.replayed ? REPLAYED : NO_STORE);
  }
}
