// The operator's review of deposits and withdrawals whose outcome the chain could not prove (docs/operations.md,
// "Settlement in review"): the queue (listAdminOperations) and the resolution (resolveOperation), an audited,
// idempotent operator write whose resolution, ledger posting, final status and audit row commit together.
import type { AdminOperation } from '../../../generated/openapi/types.gen.js';
import { clampLimit } from '../../domain/contests/lobby.js';
import { microsToWire } from '../../domain/ledger/amounts.js';
import { operationsWaiting, refuseWhenChainAnswers, resolveInReview, type ReviewOperation } from '../../domain/money/review.js';
import type { SettlementAdapter } from '../../domain/settlement/adapter.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { answerOnce, writeOnce } from '../idempotent.js';

const toWire = (op: ReviewOperation): AdminOperation => ({
  operation_id: op.id,
  user_id: op.userId,
  kind: op.kind,
  status: op.status,
  amount_micros: microsToWire(op.amount),
  destination_address: op.destinationAddress,
  tx_hash: op.txHash,
  failure_code: op.failureCode,
  created_at_ms: op.createdAt.getTime(),
  pending_reason: op.pendingReason,
  pending_reason_at_ms: op.pendingReasonAt?.getTime() ?? null,
  transactions: op.transactions.map((t) => ({
    hash: t.hash,
    nonce: Number(t.nonce),
    attempt: t.attempt,
    max_fee_per_gas_wei: t.maxFeePerGas.toString(),
    max_priority_fee_per_gas_wei: t.maxPriorityFeePerGas.toString(),
    receipt_status: t.receiptStatus as AdminOperation['transactions'][number]['receipt_status'],
    block_number: t.blockNumber === null ? null : Number(t.blockNumber),
  })),
});

export function settlementReviewHandlers(deps: { settlement: SettlementAdapter }): HandlersFor<'listAdminOperations' | 'resolveOperation'> {
  return {
    listAdminOperations: async ({ query }, { db }) => {
      const ops = await operationsWaiting(db, query.pending_reason, clampLimit(query.limit, 50, 100));
      return { status: 200, body: { operations: ops.map(toWire) }, headers: NO_STORE };
    },
    resolveOperation: async (req, ctx) => {
      const { params, body } = req;
      const operator = ctx.auth.kind === 'operator' ? ctx.auth.name : 'unknown';
      await refuseWhenChainAnswers(ctx.db, deps.settlement, params.operation_id);
      const w = await writeOnce(
        req,
        ctx,
        { scope: `operator:operation:${params.operation_id}`, print: { ...body, operation_id: params.operation_id } },
        async ({ db, audit }) => {
          const op = await resolveInReview(db, deps.settlement, {
            operationId: params.operation_id,
            outcome: body.outcome,
            txHash: body.tx_hash ?? null,
            reason: body.reason,
            operator,
          });
          await audit.record(db);
          return op;
        },
        (op) => ({ reply: { status: 200 as const, body: toWire(op), headers: NO_STORE }, resourceId: op.id }),
      );
      return answerOnce(req, ctx, w);
    },
  };
}
