// The operator's review of deposits and withdrawals whose outcome the chain could not prove (docs/operations.md,
// "Settlement in review"): the queue (listAdminOperations) and the resolution (resolveOperation), an audited,
// idempotent operator write whose resolution, ledger posting, final status and audit row commit together (a step
// of the money lifecycle, src/trading/money-lifecycle.ts, which publishes it after commit).
import { clampLimit } from '../../domain/contests/lobby.js';
import { operationsWaiting } from '../../domain/money/review.js';
import type { MoneyLifecycle } from '../../trading/money-lifecycle.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { answerOnce, writeOnce } from '../idempotent.js';
import { adminOperationToWire } from './money-wire.js';

export function settlementReviewHandlers(deps: { money: MoneyLifecycle }): HandlersFor<'listAdminOperations' | 'resolveOperation'> {
  const { money } = deps;
  return {
    listAdminOperations: async ({ query }, { db }) => {
      const ops = await operationsWaiting(db, query.pending_reason, clampLimit(query.limit, 50, 100));
      return { status: 200, body: { operations: ops.map(adminOperationToWire) }, headers: NO_STORE };
    },
    resolveOperation: async (req, ctx) => {
      const { params, body } = req;
      const operator = ctx.auth.kind === 'operator' ? ctx.auth.name : 'unknown';
      await money.checkChain(ctx.db, params.operation_id);
      const w = await writeOnce(
        req,
        ctx,
        { scope: `operator:operation:${params.operation_id}`, print: { ...body, operation_id: params.operation_id } },
        async ({ db, audit }) => {
          const op = await money.resolve(db, {
            operationId: params.operation_id,
            outcome: body.outcome,
            txHash: body.tx_hash ?? null,
            reason: body.reason,
            operator,
          });
          await audit.record(db);
          return op;
        },
        (op) => ({ reply: { status: 200 as const, body: adminOperationToWire(op), headers: NO_STORE }, resourceId: op.id }),
      );
      if (!w.replayed) await money.resolved(w.value, ctx.log);
      return answerOnce(req, ctx, w);
    },
  };
}
