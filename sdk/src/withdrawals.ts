// Withdrawals under the deployment's custody controls (spec/openapi.yaml, createWithdrawal): the refusals a client
// can act on, read from the service's error body, and whether a withdrawal waits for an operator's review.
import type { Error as ErrorBody, Operation, WithdrawalPending } from '../../generated/sdk/types.gen.ts';

/** Why a destination is refused (`details.rule` of DESTINATION_NOT_ALLOWED). */
export type DestinationRule =
  'zero_address' | 'token_contract' | 'settlement_wallet' | 'cold_wallet' | 'deposit_address' | 'denylist' | 'sanctioned';

/** A createWithdrawal refusal (422, nothing reserved), typed; amounts are decimal strings of micros. */
export type WithdrawalRefusal =
  | { code: 'DESTINATION_NOT_ALLOWED'; rule: DestinationRule; destinationAddress: string }
  | { code: 'WITHDRAWAL_TOO_SMALL'; minMicros: string }
  | { code: 'WITHDRAWAL_LIMIT_EXCEEDED'; limitMicros: string; remainingMicros: string }
  | { code: 'INSUFFICIENT_BALANCE' };

/** The refusal a createWithdrawal error body carries, or null for any other error (e.g. SETTLEMENT_FAILED, WITHDRAWAL_REJECTED). */
export function withdrawalRefusal(error: ErrorBody | undefined | null): WithdrawalRefusal | null {
  const d = (error?.details ?? {}) as Record<string, string>;
  switch (error?.code) {
    case 'DESTINATION_NOT_ALLOWED':
      return { code: error.code, rule: d.rule as DestinationRule, destinationAddress: d.destination_address! };
    case 'WITHDRAWAL_TOO_SMALL':
      return { code: error.code, minMicros: d.min_micros! };
    case 'WITHDRAWAL_LIMIT_EXCEEDED':
      return { code: error.code, limitMicros: d.limit_micros!, remainingMicros: d.remaining_micros! };
    case 'INSUFFICIENT_BALANCE':
      return { code: error.code };
    default:
      return null;
  }
}

/** True while the withdrawal is held for an operator's review (a 202 answer or GET /v1/users/operations/{id}). */
export function isHeldForReview(op: Pick<Operation, 'status' | 'pending_reason'> | WithdrawalPending): boolean {
  return op.status === 'pending' && op.pending_reason === 'review';
}
