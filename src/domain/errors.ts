// Typed errors thrown by the rules; src/http/errors.ts turns them into the one error body.
export type ErrorDetails = Record<string, unknown> | unknown[] | null;

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationFailed extends AppError {
  constructor(message: string, details: ErrorDetails = null, code = 'VALIDATION_FAILED') {
    super(400, code, message, details);
  }
}
export class Unauthorized extends AppError {
  constructor(message = 'a bearer token is required: send Authorization: Bearer <session_token>', code = 'UNAUTHORIZED') {
    super(401, code, message, null, { 'WWW-Authenticate': 'Bearer' });
  }
}
export class InvalidSession extends AppError {
  constructor(message = 'the bearer token is unknown, revoked or expired; sign in again') {
    super(401, 'INVALID_SESSION', message, null, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }
}
export class Forbidden extends AppError {
  constructor(message: string) {
    super(403, 'FORBIDDEN', message);
  }
}
export class NotFound extends AppError {
  constructor(code: string, message: string) {
    super(404, code, message);
  }
}
export class Conflict extends AppError {
  constructor(code: string, message: string, details: ErrorDetails = null) {
    super(409, code, message, details);
  }
}
export class Unprocessable extends AppError {
  constructor(code: string, message: string, details: ErrorDetails = null) {
    super(422, code, message, details);
  }
}
export class NotImplemented extends AppError {
  constructor(operationId: string) {
    super(501, 'NOT_IMPLEMENTED', `${operationId} is documented but not built yet`, { operation_id: operationId });
  }
}
export class Unavailable extends AppError {
  constructor(message: string, details: ErrorDetails = null) {
    super(503, 'UNAVAILABLE', message, details, { 'Retry-After': '1' });
  }
}
export class InvalidIdentityToken extends AppError {
  constructor(message: string) {
    super(401, 'INVALID_IDENTITY_TOKEN', message);
  }
}
export class InvalidSiweMessage extends AppError {
  constructor(message: string) {
    super(401, 'INVALID_SIWE_MESSAGE', message);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A lowercase UUID as the service issues ids (an id of any other shape is found nowhere). */
export const isUuid = (s: string) => UUID.test(s);
