// The operator audit trail: who (operator account), which request, when, and what (operation, target,
// request body without secrets, outcome status). Appended only; listed newest first with a signed keyset
// cursor (src/domain/keyset-cursor.ts). How rows are written per request: src/http/audit.ts.
import { createHash, randomUUID } from 'node:crypto';
import type { Em } from '../db/orm.js';
import { type AuditRowInsert } from '../db/repositories/operator-audit.repository.js';
import { KeysetCursors } from './keyset-cursor.js';
import { repos } from '../db/repos.js';

/** One audit row as stored (src/db/repositories/operator-audit.repository.ts owns its shape). */
export type AuditRecord = AuditRowInsert;
/** What a request reports; the trail adds the row's id and time. */
export type AuditEntry = Omit<AuditRowInsert, 'id' | 'atMs'>;

/** Field names whose values never reach the trail (as src/logger.ts never logs them). */
const SECRET_FIELD = /(token|secret|password|private_?key|mnemonic|signature|authorization|cookie)$/i;
const REDACTED = '[redacted]';

/** The body as the trail keeps it: secrets replaced, binary bodies (images) as their size and SHA-256. */
export function auditBody(body: unknown, contentType: string | undefined): unknown {
  if (body === undefined) return null;
  if (Buffer.isBuffer(body)) {
    return { content_type: contentType ?? null, size_bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') };
  }
  return redact(body);
}

function redact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redact);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET_FIELD.test(k) ? REDACTED : redact(x)]));
}

export async function appendAudit(em: Em, e: AuditEntry, nowMs = Date.now()): Promise<AuditRecord> {
  const row = { ...e, id: randomUUID(), atMs: nowMs };
  // Decided in SQL (operator_audit_append_only, trigger in src/db/migrations/Migration20261126010100_operator_audit.ts):
  // the trail is append-only, an UPDATE or DELETE of it refused.
  await repos(em).operatorAudit.append(row);
  return row;
}

/** Newest first (at_ms desc, id desc); `limit` already clamped by the caller. */
export async function listAudit(
  em: Em,
  q: { limit: number; cursor?: string | undefined },
): Promise<{ entries: AuditRecord[]; nextCursor: string | null }> {
  const cursors = await KeysetCursors.of(em, 'operator-audit');
  const after = cursors.decode(q.cursor, null);
  const rows = await repos(em).operatorAudit.page(after, q.limit + 1);
  const entries = rows.slice(0, q.limit).map((r): AuditRecord => ({
    id: r.id,
    atMs: r.at_ms,
    operator: r.operator,
    requestId: r.request_id,
    operationId: r.operation_id,
    method: r.method,
    path: r.path,
    target: r.target,
    body: r.body,
    status: r.status,
    errorCode: r.error_code,
    inTransaction: r.in_transaction,
  }));
  const last = entries.at(-1);
  const nextCursor = rows.length > q.limit && last ? cursors.encode({ atMs: last.atMs, id: last.id }, null) : null;
  return { entries, nextCursor };
}
