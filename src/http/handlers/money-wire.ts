// Deposits and withdrawals on the wire for the operator (AdminOperation); a user's Operation is mapped once in
// src/http/handlers/history.ts. Amounts and fees leave as decimal strings of micros.
import type { AdminOperation } from '../../../generated/openapi/types.gen.js';
import { microsToWire } from '../../domain/ledger/amounts.js';
import type { ReviewOperation } from '../../domain/money/review.js';

export function adminOperationToWire(op: ReviewOperation): AdminOperation {
  return {
    operation_id: op.id,
    user_id: op.userId,
    kind: op.kind,
    status: op.status,
    amount_micros: microsToWire(op.amount),
    fee_micros: microsToWire(op.fee),
    destination_address: op.destinationAddress,
    tx_hash: op.txHash,
    failure_code: op.failureCode,
    created_at_ms: op.createdAt.getTime(),
    pending_reason: op.pendingReason,
    pending_reason_at_ms: op.pendingReasonAt?.getTime() ?? null,
    review: op.review && {
      status: op.review.status,
      causes: op.review.causes,
      held_at_ms: op.review.heldAt.getTime(),
      reason: op.review.reason,
      operator: op.review.operator,
      decided_at_ms: op.review.decidedAt?.getTime() ?? null,
    },
    transactions: op.transactions.map((t) => ({
      hash: t.hash,
      nonce: Number(t.nonce),
      attempt: t.attempt,
      max_fee_per_gas_wei: t.maxFeePerGas.toString(),
      max_priority_fee_per_gas_wei: t.maxPriorityFeePerGas.toString(),
      receipt_status: t.receiptStatus as AdminOperation['transactions'][number]['receipt_status'],
      block_number: t.blockNumber === null ? null : Number(t.blockNumber),
    })),
  };
}
