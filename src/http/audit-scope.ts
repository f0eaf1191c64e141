// What a handler sees of the operator audit trail (ctx.audit). An operator's write runs its change through
// `within` (or calls `record` inside a transaction it already holds), so that the audit row commits or
// rolls back with the change. For every other request `within` only opens the transaction and `record` does nothing. See src/http/audit.ts.
import type { Em } from '../db/orm.js';
import { inTransaction, type Tx } from '../db/unit-of-work.js';

export interface AuditScope {
  /**
   * Runs `write` in a transaction on `em` and appends the audit row in that same transaction, with the
   * operation's success status. `targetOf`: what the write made or changed (an id), when the path has none.
   */
  within<T>(em: Em, write: (tx: Tx) => Promise<T>, targetOf?: (value: T) => string | null): Promise<T>;
  /** Appends the audit row inside a transaction the caller already holds (e.g. an idempotency key's). */
  record(tx: Tx, target?: string | null): Promise<void>;
}

export const NO_AUDIT: AuditScope = Object.freeze({
  within: <T>(em: Em, write: (tx: Tx) => Promise<T>) => inTransaction(em, write),
  record: async () => {},
});
