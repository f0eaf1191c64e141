import { describe, expect, it } from 'vitest';
import { isHeldForReview, withdrawalRefusal } from './withdrawals.ts';

describe('withdrawal refusals', () => {
  it('reads every refusal of createWithdrawal from the error body, and nothing else', () => {
    const to = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(
      withdrawalRefusal({ error: 'x', code: 'DESTINATION_NOT_ALLOWED', details: { rule: 'deposit_address', destination_address: to } }),
    ).toEqual({
      code: 'DESTINATION_NOT_ALLOWED',
      rule: 'deposit_address',
      destinationAddress: to,
    });
    expect(withdrawalRefusal({ error: 'x', code: 'WITHDRAWAL_TOO_SMALL', details: { min_micros: '1000000' } })).toEqual({
      code: 'WITHDRAWAL_TOO_SMALL',
      minMicros: '1000000',
    });
    expect(
      withdrawalRefusal({ error: 'x', code: 'WITHDRAWAL_LIMIT_EXCEEDED', details: { limit_micros: '10', remaining_micros: '3' } }),
    ).toEqual({
      code: 'WITHDRAWAL_LIMIT_EXCEEDED',
      limitMicros: '10',
      remainingMicros: '3',
    });
    expect(withdrawalRefusal({ error: 'x', code: 'INSUFFICIENT_BALANCE', details: null })).toEqual({ code: 'INSUFFICIENT_BALANCE' });
    expect(withdrawalRefusal({ error: 'x', code: 'WITHDRAWAL_REJECTED', details: { operation_id: 'o' } })).toBeNull();
    expect(withdrawalRefusal(undefined)).toBeNull();
  });

  it('a withdrawal is held for review while pending with pending_reason review', () => {
    expect(isHeldForReview({ operation_id: 'o', status: 'pending', fee_micros: '0', pending_reason: 'review' })).toBe(true);
    expect(isHeldForReview({ status: 'pending', pending_reason: null })).toBe(false);
    expect(isHeldForReview({ status: 'failed', pending_reason: null })).toBe(false);
  });
});
