// The one place that turns any thrown thing into the one error body:
//   {"error": "<human-readable text>", "code": "UPPER_SNAKE_CODE", "details": <object|array|null>}
import type { ErrorObject } from 'ajv';
import { AppError, ValidationFailed, type ErrorDetails } from '../domain/errors.js';
import { fromDatabaseError } from '../domain/database-errors.js';

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
    return {
      status: err.status,
      body: { error: err.message, code: err.code, details: capDetails(err.details) },
      headers: err.headers,
      unexpected: false,
    };
  }
  const fromDb = fromDatabaseError(err);
  if (fromDb) return toErrorResponse(fromDb, requestId);
  return {
    status: 500,
    body: { error: 'internal error; report the request id', code: 'INTERNAL', details: { request_id: requestId } },
    headers: {},
    unexpected: true,
  };
}

/** Field-level validation failures, every one of them, as {in, path, message}. */
export function validationFailed(errors: ErrorObject[] | null | undefined): ValidationFailed {
  const details = (errors ?? []).map(describeAjvError);
  const summary = details
    .map((d) => `${d.in === 'body' ? 'body' : d.in} ${d.path || '/'}: ${d.message}`)
    .slice(0, 3)
    .join('; ');
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
