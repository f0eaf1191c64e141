// The one SQLSTATE -> domain error mapping. Database errors reach us two ways: wrapped by MikroORM
// (DriverException and subclasses, `code` = SQLSTATE) from raw em SQL and the unit of work, and raw from the
// driver (pg's DatabaseError, PGlite's error, `code` = SQLSTATE) from Kysely queries. Both carry the code.
import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Conflict, Unavailable, Unprocessable } from './errors.js';

export const SQLSTATE = {
  uniqueViolation: '23505',
  checkViolation: '23514',
  lockNotAvailable: '55P03',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
} as const;

// The database (or the queue's connection) is unreachable or going away: node's socket errors, SQLSTATE
// class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now), 53300 (too many
// connections), and what pg and its pool throw without a code (a connection ended mid-query, an acquire
// timeout). The client should retry with the same idempotency key.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const UNAVAILABLE_MESSAGE =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|timeout acquiring a connection|client has encountered a connection error|is not queryable|connection ended|server closed the connection|terminating connection/i;

/** The error and its causes (`cause`, at most 5 deep): drivers and the ORM wrap what the database said. */
function* causes(err: unknown): Generator<object> {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    if (e instanceof ConnectionException) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

export function sqlState(err: unknown): string | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; sqlState?: unknown };
  const code = typeof e.sqlState === 'string' ? e.sqlState : e.code;
  return typeof code === 'string' ? code : undefined;
}

function constraintOf(err: unknown): string | undefined {
  const e = err as { constraint?: unknown; message?: unknown };
  if (typeof e.constraint === 'string') return e.constraint;
  const m = typeof e.message === 'string' ? /constraint "([^"]+)"/.exec(e.message) : null;
  return m?.[1];
}

/** A unique violation of this constraint, raised through MikroORM or raw from the driver (Kysely). */
/** A deadlock or serialization failure (here or in a cause): the transaction was rolled back and may simply run again. */
export function isTransientConflict(err: unknown): boolean {
  for (const e of causes(err)) {
    const code = sqlState(e);
    if (code === SQLSTATE.deadlockDetected || code === SQLSTATE.serializationFailure) return true;
  }
  return false;
}

export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const unique = err instanceof UniqueConstraintViolationException || sqlState(err) === SQLSTATE.uniqueViolation;
  return unique && constraintOf(err) === constraint;
}

/** A CHECK constraint refused a row (SQLSTATE 23514) and it was `constraint`. */
export function isCheckViolation(err: unknown, constraint: string): boolean {
  return sqlState(err) === SQLSTATE.checkViolation && constraintOf(err) === constraint;
}

/**
 * The domain error a database error stands for, or null when it is not one we map (a bug: the caller
 * answers 500). The texts are the ones the error body has always carried for these cases.
 */
export function fromDatabaseError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const code = sqlState(err);
  if (isDatabaseUnavailable(err)) {
    return new Unavailable('a dependency (database or queue) is unavailable; retry with the same idempotency key');
  }
  if (err instanceof UniqueConstraintViolationException) return fromDatabaseError({ code: SQLSTATE.uniqueViolation });
  switch (code) {
    case SQLSTATE.uniqueViolation:
      return new Conflict(
        'CONFLICT',
        'the request conflicts with an existing resource; retry with a fresh idempotency key or read the resource first',
      );
    case SQLSTATE.lockNotAvailable:
      return new Conflict('IDEMPOTENCY_REQUEST_IN_PROGRESS', 'the same resource is being changed by another request; retry shortly');
    case SQLSTATE.serializationFailure:
    case SQLSTATE.deadlockDetected:
      return new Unavailable('the database could not serialize this request with a concurrent one; retry with the same idempotency key');
    case SQLSTATE.checkViolation:
      // A user balance may never go below zero: the ledger checks first, this is the database's backstop.
      if (constraintOf(err) === 'ledger_accounts_user_balance_check') {
        return new Unprocessable('INSUFFICIENT_BALANCE', 'the available balance is lower than the amount');
      }
      return null;
    default:
      return null;
  }
}
