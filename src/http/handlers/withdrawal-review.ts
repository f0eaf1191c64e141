// The operator's review of withdrawals held by the custody rules (docs/operations.md, "Custody"): the queue
// (listAdminWithdrawals) and the two decisions, approveWithdrawal (the withdrawal is then sent) and
// rejectWithdrawal (refunded, failed WITHDRAWAL_REJECTED). Each decision is an audited, idempotent operator write:
// one step of the money lifecycle (src/trading/money-lifecycle.ts) whose decision, effect and audit row commit
// together, then its after-commit step (the enqueue, or the publish).
import { clampLimit } from '../../domain/contests/lobby.js';
import { withdrawalsInReview } from '../../domain/money/withdrawal-review.js';
import type { MoneyLifecycle } from '../../trading/money-lifecycle.js';
import { NO_STORE, type HandlersFor, type RequestContext } from '../handler.js';
import { answerOnce, writeOnce } from '../idempotent.js';
import { adminOperationToWire } from './money-wire.js';

type WithdrawalReviewOperationId = 'listAdminWithdrawals' | 'approveWithdrawal' | 'rejectWithdrawal';

const operatorOf = (ctx: RequestContext) => (ctx.auth.kind === 'operator' ? ctx.auth.name : 'unknown');
const scopeOf = (operationId: string) => `operator:withdrawal:${operationId}`;

export function withdrawalReviewHandlers(deps: { money: MoneyLifecycle }): HandlersFor<WithdrawalReviewOperationId> {
  const { money } = deps;
  return {
    listAdminWithdrawals: async ({ query }, { db }) => {
      const ops = await withdrawalsInReview(db, query.status, clampLimit(query.limit, 50, 100));
      return { status: 200, body: { withdrawals: ops.map(adminOperationToWire) }, headers: NO_STORE };
    },
    approveWithdrawal: async (req, ctx) => {
      const { params, body } = req;
      const w = await writeOnce(
        req,
        ctx,
        { scope: scopeOf(params.operation_id), print: { ...body, operation_id: params.operation_id } },
        async ({ db, audit }) => {
          const op = await money.approve(db, { operationId: params.operation_id, reason: body.reason ?? null, operator: operatorOf(ctx) });
          await audit.record(db);
          return op;
        },
        (op) => ({ reply: { status: 200 as const, body: adminOperationToWire(op), headers: NO_STORE }, resourceId: op.id }),
      );
      if (!w.replayed) await money.approved(w.value, ctx.log);
      return answerOnce(req, ctx, w);
    },
    rejectWithdrawal: async (req, ctx) => {
      const { params, body } = req;
      const w = await writeOnce(
        req,
        ctx,
        { scope: scopeOf(params.operation_id), print: { ...body, operation_id: params.operation_id } },
        async ({ db, audit }) => {
          const op = await money.reject(db, { operationId: params.operation_id, reason: body.reason, operator: operatorOf(ctx) });
          await audit.record(db);
          return op;
        },
        (op) => ({ reply: { status: 200 as const, body: adminOperationToWire(op), headers: NO_STORE }, resourceId: op.id }),
      );
      if (!w.replayed) await money.rejected(w.value, ctx.log);
      return answerOnce(req, ctx, w);
    },
  };
}
