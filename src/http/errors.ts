// The one place that turns any thrown thing into the one error body:
//   {"error": "<human-readable text>", "code": "UPPER_SNAKE_CODE", "details": <object|array|null>}
import { DriverException, UniqueConstraintViolationException, ConnectionException } from '@mikro-orm/core';
import type { ErrorObject } from 'ajv';
import { AppError, ValidationFailed, type ErrorDetails } from '../domain/errors.js';

export interface ErrorBody {
  error: string;
  code: string;
  details: ErrorDetails;
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** true when the error is ours to fix (logged at error level). */
  unexpected: boolean;
}

/** At most this many entries of an array `details` go on the wire; a last `{omitted: n}` counts the rest. */
export const MAX_DETAILS = 20;

export function capDetails(details: ErrorDetails): ErrorDetails {
  if (!Array.isArray(details) || details.length <= MAX_DETAILS) return details;
  return [...details.slice(0, MAX_DETAILS), { omitted: details.length - MAX_DETAILS }];
}

export function toErrorResponse(err: unknown, requestId: string): ErrorResponse {
  if (err instanceof AppError) {
    return { status: err.status, body: { error: err.message, code: err.code, details: capDetails(err.details) }, headers: err.headers, unexpected: false };
  }
  if (err instanceof UniqueConstraintViolationException) {
    return plain(409, 'CONFLICT', 'the request conflicts with an existing resource; retry with a fresh idempotency key or read the resource first');
  }
  if (isDatabaseUnavailable(err)) {
    return { ...plain(503, 'UNAVAILABLE', 'a dependency (database or queue) is unavailable; retry with the same idempotency key'), headers: { 'Retry-After': '1' } };
  }
  if (err instanceof DriverException && (err as { code?: string }).code === '55P03') {
    return plain(409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'the same resource is being changed by another request; retry shortly');
  }
  return {
    status: 500,
    body: { error: 'internal error; report the request id', code: 'INTERNAL', details: { request_id: requestId } },
    headers: {},
    unexpected: true,
  };
}

function plain(status: number, code: string, error: string): ErrorResponse {
  return { status, body: { error, code, details: null }, headers: {}, unexpected: false };
}

// The database (or the queue's connection) is unreachable or going away: node's socket errors, SQLSTATE
// class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot connect now), 53300 (too many
// connections), and what pg and its pool throw without a code (a connection ended mid-query, an acquire
// timeout). The client should retry with the same idempotency key.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', '57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGE =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|timeout acquiring a connection|client has encountered a connection error|is not queryable|connection ended|server closed the connection|terminating connection/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ConnectionException) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

/** Field-level validation failures, every one of them, as {in, path, message}. */
export function validationFailed(errors: ErrorObject[] | null | undefined): ValidationFailed {
  const details = (errors ?? []).map(describeAjvError);
  const summary = details.map((d) => `${d.in === 'body' ? 'body' : d.in} ${d.path || '/'}: ${d.message}`).slice(0, 3).join('; ');
  return new ValidationFailed(`request does not match the API specification: ${summary}${details.length > 3 ? '; …' : ''}`, details);
}

const LOCATION: Record<string, string> = { requestBody: 'body', query: 'query', path: 'path', header: 'header', headers: 'header' };

function describeAjvError(e: ErrorObject): { in: string; path: string; message: string } {
  // openapi-backend validates {path, query, header, requestBody} as one object: split the location off.
  const [, first = '', ...rest] = e.instancePath.split('/');
  const where = LOCATION[first] ?? 'body';
  let path = first in LOCATION ? (rest.length ? `/${rest.join('/')}` : '') : e.instancePath;
  let message = e.message ?? 'is invalid';
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    path = `${path}/${params.additionalProperty}`;
    message = 'is not a known property';
  } else if (e.keyword === 'required' && params.missingProperty === 'requestBody' && !path) {
    message = 'a JSON request body is required';
  } else if (e.keyword === 'required' && typeof params.missingProperty === 'string') {
    path = `${path}/${params.missingProperty}`;
    message = 'is required';
  } else if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    message = `must be one of: ${params.allowedValues.join(', ')}`;
  }
  return { in: where, path, message };
}
