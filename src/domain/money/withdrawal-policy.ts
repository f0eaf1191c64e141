// The pure decision of a withdrawal request (docs/operations.md, "Custody"): destination, minimum, the user's
// rolling-day limit, the fee, and whether it is held for review (above the review threshold, or past the
// deployment's rolling-hour volume). Its inputs are read under the locks of src/domain/money/withdrawals.ts; it
// reads nothing and writes nothing, so it is property-tested over random inputs (withdrawal-policy.property.test.ts).
import type { ReviewCause } from '../../db/repositories/withdrawals.repository.js';

export type { ReviewCause };

/** Which destination rule refused, first match in this order (details.rule of DESTINATION_NOT_ALLOWED). */
export type DestinationRule =
  'zero_address' | 'token_contract' | 'settlement_wallet' | 'cold_wallet' | 'deposit_address' | 'denylist' | 'sanctioned';

export interface WithdrawalRules {
  minMicros: bigint;
  feeMicros: bigint;
  /** Per user, rolling 24 h; null: no limit. */
  dailyLimitMicros: bigint | null;
  /** The deployment's automatic (unreviewed) volume, rolling hour; null: no limit. */
  hourlyLimitMicros: bigint | null;
  /** Held for review when the amount is above this; null: never. */
  reviewAboveMicros: bigint | null;
}

export interface WithdrawalFacts {
  amount: bigint;
  /** The first destination rule that refuses it, or null. */
  destination: DestinationRule | null;
  /** The user's withdrawals (amounts) of the last 24 h, not failed. */
  userWithdrawnDay: bigint;
  /** The deployment's withdrawals of the last hour sent without review (read only when hourlyLimitMicros is set). */
  automaticWithdrawnHour: bigint;
}

export type WithdrawalRefusal =
  | { code: 'DESTINATION_NOT_ALLOWED'; rule: DestinationRule }
  | { code: 'WITHDRAWAL_TOO_SMALL'; minMicros: bigint }
  | { code: 'WITHDRAWAL_LIMIT_EXCEEDED'; limitMicros: bigint; remainingMicros: bigint };

export type WithdrawalDecision =
  | { accept: false; refusal: WithdrawalRefusal }
  /** `reserve`: amount + fee, moved from available to reserved. `review`: why it is held (empty: sent at once). */
  | { accept: true; fee: bigint; reserve: bigint; review: ReviewCause[] };

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export function decideWithdrawal(rules: WithdrawalRules, f: WithdrawalFacts): WithdrawalDecision {
  if (f.destination) return { accept: false, refusal: { code: 'DESTINATION_NOT_ALLOWED', rule: f.destination } };
  if (f.amount < rules.minMicros) return { accept: false, refusal: { code: 'WITHDRAWAL_TOO_SMALL', minMicros: rules.minMicros } };
  const daily = rules.dailyLimitMicros;
  if (daily !== null && f.userWithdrawnDay + f.amount > daily) {
    const remaining = daily > f.userWithdrawnDay ? daily - f.userWithdrawnDay : 0n;
    return { accept: false, refusal: { code: 'WITHDRAWAL_LIMIT_EXCEEDED', limitMicros: daily, remainingMicros: remaining } };
  }
  const review: ReviewCause[] = [];
  if (rules.reviewAboveMicros !== null && f.amount > rules.reviewAboveMicros) review.push('above_review_threshold');
  if (rules.hourlyLimitMicros !== null && f.automaticWithdrawnHour + f.amount > rules.hourlyLimitMicros) review.push('hourly_limit');
  return { accept: true, fee: rules.feeMicros, reserve: f.amount + rules.feeMicros, review };
}

/** DEPOSIT_MIN_MICROS: null when the amount may be deposited. */
export function depositRefusal(minMicros: bigint, amount: bigint): { code: 'DEPOSIT_TOO_SMALL'; minMicros: bigint } | null {
  return amount < minMicros ? { code: 'DEPOSIT_TOO_SMALL', minMicros } : null;
}

export interface DestinationFacts {
  /** Lower case. */
  address: string;
  /** Lower-case addresses of this deployment: USDC, the settlement wallet, the cold wallet (each may be absent). */
  token: string | null;
  settlement: string | null;
  cold: string | null;
  isDepositAddress: boolean;
  denylisted: boolean;
  sanctioned: boolean;
}

/** The first destination rule that refuses `f.address`, in the order of DestinationRule. */
export function destinationRule(f: DestinationFacts): DestinationRule | null {
  if (/^0x0{40}$/.test(f.address)) return 'zero_address';
  if (f.address === f.token) return 'token_contract';
  if (f.address === f.settlement) return 'settlement_wallet';
  if (f.address === f.cold) return 'cold_wallet';
  if (f.isDepositAddress) return 'deposit_address';
  if (f.denylisted) return 'denylist';
  if (f.sanctioned) return 'sanctioned';
  return null;
}
