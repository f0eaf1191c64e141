// The unit-of-work convention of the lifecycle steps (docs/architecture.md, "Units of work"), in the types:
//   Tx  an em inside a transaction its caller opened and will commit: a step that takes one writes in it and never
//       commits; only `inTransaction` below makes one (the idempotency key's transaction, src/domain/idempotency.ts,
//       and the operator audit's, src/http/audit.ts, open theirs through it).
//   Em  (src/db/orm.ts) a request's or a worker's fork with no transaction of the caller's open: a step that takes
//       one opens its own transaction(s) on it.
// A Tx is an Em (a step that opens its own transaction can run inside one: MikroORM nests it as a savepoint), but an
// Em is not a Tx, so a step that must write in its caller's transaction cannot be handed a bare fork.
import type { Em } from './orm.js';

declare const openTransaction: unique symbol;

/** An em bound to a transaction its caller owns (made only by inTransaction). */
export type Tx = Em & { readonly [openTransaction]: true };

/** Runs `fn` in a transaction on `em` (em.transactional: a fork bound to it, committed when `fn` resolves). */
export function inTransaction<T>(em: Em, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return em.transactional((tx) => fn(tx as Tx));
}
