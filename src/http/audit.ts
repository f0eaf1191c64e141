// The operator audit trail per request (docs/operations.md). Every request an operator account makes with
// a method other than GET/HEAD that reaches its handler gets exactly one row in operator_audit:
//   - in the change's own transaction when the handler runs its change through ctx.audit (every operator
//     write handler does): the row commits or rolls back with the change, with the operation's success status;
//   - otherwise after the handler, in its own statement (`in_transaction: false`): a rejected request (4xx,
//     nothing changed), an idempotent replay, or an error. If that append fails the request is answered as
//     it would have been, and the row is logged at error level instead (it never undoes or fakes an answer).
//     A change that committed with its row and then failed to answer (a 500 reading it back) has both rows.
// Requests refused before their handler (authentication, schema validation) are not operator writes and
// leave no row; they are in the access log with their request id.
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Em } from '../db/orm.js';
import { inTransaction, type Tx } from '../db/unit-of-work.js';
import { appendAudit, auditBody, type AuditEntry } from '../domain/audit.js';
import { AppError } from '../domain/errors.js';
import type { AuditScope } from './audit-scope.js';
import type { RequestContext } from './context.js';
import type { HandlerResponse, ValidatedRequest } from './handler.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Each operation's success status (its lowest documented 2xx). */
export function successStatuses(document: OpenAPIV3_1.Document): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of Object.values(item ?? {}) as Array<OpenAPIV3_1.OperationObject | undefined>) {
      const ok = Object.keys(op?.responses ?? {})
        .filter((s) => /^2\d\d$/.test(s))
        .sort();
      if (op?.operationId && ok[0]) out.set(op.operationId, Number(ok[0]));
    }
  }
  return out;
}

/** The path parameters' values, e.g. `42` for /v1/admin/markets/42/resolve; null when the path has none. */
function pathTarget(params: unknown): string | null {
  const values = Object.values((params ?? {}) as Record<string, unknown>).map(String);
  return values.length ? values.join('/') : null;
}

class RequestAudit implements AuditScope {
  /** A row was appended in the change's transaction (committed if the handler then answers success). */
  recorded = false;
  constructor(
    private readonly entry: Omit<AuditEntry, 'status' | 'errorCode' | 'inTransaction'>,
    private readonly successStatus: number,
    private readonly forkDb: () => Em,
    private readonly ctx: RequestContext,
  ) {}

  within<T>(em: Em, write: (tx: Tx) => Promise<T>, targetOf?: (value: T) => string | null): Promise<T> {
    return inTransaction(em, async (tx) => {
      const value = await write(tx);
      await this.record(tx, targetOf?.(value) ?? undefined);
      return value;
    });
  }

  async record(tx: Tx, target?: string | null): Promise<void> {
    await appendAudit(tx, {
      ...this.entry,
      target: target ?? this.entry.target,
      status: this.successStatus,
      errorCode: null,
      inTransaction: true,
    });
    this.recorded = true;
  }

  /**
   * After the handler. A success whose row was recorded in its transaction is done (that transaction
   * committed). Anything else gets its own row now: a rejection or error (if a change had already
   * committed with its row, the trail then shows both the change and the failed answer), a replay, or a
   * handler that did not record.
   */
  async after(status: number, errorCode: string | null): Promise<void> {
    if (this.recorded && status < 400) return;
    const row = { ...this.entry, status, errorCode, inTransaction: false };
    try {
      await appendAudit(this.forkDb(), row);
    } catch (err) {
      this.ctx.log.error({ err, audit: row }, 'operator audit row could not be written; it is logged here instead');
    }
  }
}

/**
 * Wraps the dispatch of one validated request: for an operator's write, sets ctx.audit and makes sure the
 * request leaves its row; any other request goes straight to its handler.
 */
export function createAuditedDispatch(document: OpenAPIV3_1.Document, forkDb: () => Em) {
  const success = successStatuses(document);
  return async (
    run: (req: ValidatedRequest, ctx: RequestContext) => Promise<HandlerResponse> | HandlerResponse,
    req: ValidatedRequest & { method: string; path: string },
    ctx: RequestContext,
  ): Promise<HandlerResponse> => {
    if (ctx.auth.kind !== 'operator' || READS.has(req.method)) return run(req, ctx);
    const audit = new RequestAudit(
      {
        operator: ctx.auth.name,
        requestId: ctx.requestId,
        operationId: req.operationId,
        method: req.method,
        path: req.path,
        target: pathTarget(req.params),
        body: auditBody(req.body, req.contentType),
      },
      success.get(req.operationId) ?? 200,
      forkDb,
      ctx,
    );
    ctx.audit = audit;
    let reply: HandlerResponse;
    try {
      reply = await run(req, ctx);
    } catch (err) {
      await audit.after(err instanceof AppError ? err.status : 500, err instanceof AppError ? err.code : 'INTERNAL');
      throw err;
    }
    await audit.after(reply.status, null);
    return reply;
  };
}
