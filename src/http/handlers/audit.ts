// The operator audit trail (listAuditEntries): newest first, one keyset page. Rows are written by
// src/http/audit.ts around every operator write.
import { clamp } from '../../domain/page-limits.js';
import { listAudit } from '../../domain/audit.js';
import { NO_STORE, type HandlersFor } from '../handler.js';

export const AUDIT_LIST_LIMIT = { min: 1, max: 200 } as const;

export function auditHandlers(): HandlersFor<'listAuditEntries'> {
  return {
    listAuditEntries: async ({ query }, { db }) => {
      const page = await listAudit(db, {
        limit: clamp(query.limit ?? 50, AUDIT_LIST_LIMIT.min, AUDIT_LIST_LIMIT.max),
        cursor: query.cursor,
      });
      return {
        status: 200,
        body: {
          entries: page.entries.map((e) => ({
            audit_id: e.id,
            at_ms: e.atMs,
            operator: e.operator,
            request_id: e.requestId,
            operation_id: e.operationId,
            method: e.method,
            path: e.path,
            target: e.target,
            body: e.body,
            status: e.status,
            error_code: e.errorCode,
            in_transaction: e.inTransaction,
          })),
          next_cursor: page.nextCursor,
        },
        headers: NO_STORE,
      };
    },
  };
}
