import { describe, expect, it } from 'vitest';
import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { fromDatabaseError, isTransientConflict } from './database-errors.js';

const pgError = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`pg ${code}`), { code, ...extra });

describe('fromDatabaseError', () => {
  it('maps raw driver errors (Kysely) and MikroORM exceptions alike', () => {
    expect(fromDatabaseError(pgError('23505'))).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(fromDatabaseError(new UniqueConstraintViolationException(new Error('dup')))).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(fromDatabaseError(new DriverException(pgError('55P03')))).toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS',
    });
    expect(fromDatabaseError(pgError('55P03'))).toMatchObject({ status: 409, code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' });
  });

  it('answers 503 with Retry-After for serialization failures, deadlocks and lost connections', () => {
    for (const code of ['40001', '40P01', 'ECONNREFUSED', 'ECONNRESET', '57P01']) {
      expect(fromDatabaseError(pgError(code))).toMatchObject({ status: 503, code: 'UNAVAILABLE', headers: { 'Retry-After': '1' } });
    }
  });

  it('maps only the balance check to INSUFFICIENT_BALANCE; any other check violation stays a bug (null: 500)', () => {
    expect(fromDatabaseError(pgError('23514', { constraint: 'ledger_accounts_user_balance_check' }))).toMatchObject({
      status: 422,
      code: 'INSUFFICIENT_BALANCE',
    });
    expect(fromDatabaseError(pgError('23514', { constraint: 'contests_entries_filled_check' }))).toBeNull();
    expect(fromDatabaseError(new Error('boom'))).toBeNull();
    expect(fromDatabaseError(pgError('42P01'))).toBeNull();
  });

  it('tells a deadlock or serialization failure (raw, wrapped or as a cause) from other errors', () => {
    expect(isTransientConflict(pgError('40P01'))).toBe(true);
    expect(isTransientConflict(new DriverException(pgError('40001')))).toBe(true);
    expect(isTransientConflict(Object.assign(new Error('wrapped'), { cause: pgError('40P01') }))).toBe(true);
    expect(isTransientConflict(pgError('23514'))).toBe(false);
    expect(isTransientConflict(new Error('boom'))).toBe(false);
  });
});
