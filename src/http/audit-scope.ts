// What a handler sees of the operator audit trail (ctx.audit). An operator's write runs its change through
// `within` (or calls `record` inside a transaction it already holds), so that the audit row commits or
// rolls back with the change. For every other request both are pass-throughs. See src/http/audit.ts.
import type { Em } from '../db/orm.js';

export interface AuditScope {
  /**
   * Runs `write` in a transaction on `em` and appends the audit row in that same transaction, with the
   * operation's success status. `targetOf`: what the write made or changed (an id), when the path has none.
   */
  within<T>(em: Em, write: (tx: Em) => Promise<T>, targetOf?: (value: T) => string | null): Promise<T>;
  /** Appends the audit row inside a transaction the caller already holds (e.g. an idempotency key's). */
  record(tx: Em, target?: string | null): Promise<void>;
}

export const NO_AUDIT: AuditScope = Object.freeze({
  within: <T>(em: Em, write: (tx: Em) => Promise<T>) => write(em),
  record: async () => {},
});
