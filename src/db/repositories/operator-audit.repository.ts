// The operator audit trail: appended one row at a time, read newest first in keyset pages. There is no
// update or delete here, and the table's triggers refuse both (migration ..._operator_audit).
import { sql } from 'kysely';
import { int8, int8ToNumber } from '../int8.js';
import type { Db } from '../schema.js';

export interface AuditRowInsert {
  id: string;
  atMs: number;
  operator: string;
  requestId: string;
  operationId: string;
  method: string;
  path: string;
  target: string | null;
  /** The request body as recorded (src/domain/audit.ts auditBody): never a secret, never image bytes. */
  body: unknown;
  status: number;
  errorCode: string | null;
  /** Written in the change's own transaction (false: after it, or for a request that changed nothing). */
  inTransaction: boolean;
}

const COLUMNS = [
  'id',
  'at_ms',
  'operator',
  'request_id',
  'operation_id',
  'method',
  'path',
  'target',
  'body',
  'status',
  'error_code',
  'in_transaction',
] as const;

export class OperatorAuditRepository {
  constructor(private readonly db: Db) {}

  async append(r: AuditRowInsert): Promise<void> {
    await this.db
      .insertInto('operator_audit')
      .values({
        id: r.id,
        at_ms: int8(r.atMs),
        operator: r.operator,
        request_id: r.requestId,
        operation_id: r.operationId,
        method: r.method,
        path: r.path,
        target: r.target,
        body: r.body === undefined ? null : sql`${JSON.stringify(r.body)}::jsonb`,
        status: r.status,
        error_code: r.errorCode,
        in_transaction: r.inTransaction,
      })
      .execute();
  }

  /** Newest first (at_ms desc, id desc), strictly after the keyset position. */
  async page(after: { atMs: number; id: string } | null, limit: number) {
    let q = this.db.selectFrom('operator_audit').select(COLUMNS);
    if (after) q = q.where(sql<boolean>`(at_ms, id) < (${int8(after.atMs)}::int8, ${after.id}::uuid)`);
    const rows = await q.orderBy('at_ms', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({ ...r, at_ms: int8ToNumber(r.at_ms) }));
  }
}
