// Handlers typed from the spec: generated/openapi/operations.gen.ts lists every operationId with its
// request parts and documented responses; `Handlers` maps each to its handler, so an operation, field,
// parameter or status renamed in spec/openapi.yaml fails `tsc` where a handler uses it.
import type { OperationId, Operations } from '../../generated/openapi/operations.gen.js';
import type { RequestContext } from './context.js';

export type { OperationId, RequestContext };

export interface HandlerRequest<Id extends OperationId> {
  operationId: Id;
  /** Path parameters, validated and coerced by the spec. */
  params: Operations[Id]['params'];
  /** Query parameters, validated and coerced (defaults applied) by the spec. */
  query: Operations[Id]['query'];
  /** JSON body (validated by the spec) or raw bytes for binary media types. */
  body: Operations[Id]['body'];
  contentType: Operations[Id]['contentType'];
  headers: Record<string, string | string[] | undefined>;
}

type Documented<Id extends OperationId> = Operations[Id]['responses'];

/** One of the operation's documented responses: its status with that status's body (or raw bytes). */
export type Reply<Id extends OperationId> = {
  [S in keyof Documented<Id>]: { status: S; headers?: Record<string, string> } & Documented<Id>[S];
}[keyof Documented<Id>];

export type Handler<Id extends OperationId> = (req: HandlerRequest<Id>, ctx: RequestContext) => Promise<Reply<Id>> | Reply<Id>;

/** Every operation of the spec has exactly one handler. */
export type Handlers = { [Id in OperationId]: Handler<Id> };

/** The part of `Handlers` one handler module provides. */
export type HandlersFor<Ids extends OperationId> = Pick<Handlers, Ids>;

/** What the dispatcher writes: any operation's reply. */
export interface HandlerResponse {
  status: number;
  /** JSON body; omitted for 204. */
  body?: unknown;
  /** Raw body with its content type (images, Prometheus text). */
  raw?: { data: Buffer | string; contentType: string };
  headers?: Record<string, string>;
}

/** A request as the dispatcher holds it, validated by openapi-backend against its operation's schema. */
export interface ValidatedRequest {
  operationId: string;
  params: unknown;
  query: unknown;
  body: unknown;
  contentType: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The handler of an operation, for the dispatcher. This is the one place where the untyped request
 * becomes the operation's typed request: openapi-backend has validated params, query and body against
 * the same spec the types were generated from.
 */
export function handlerFor(handlers: Handlers, operationId: string): AnyHandler | undefined {
  const handler = (handlers as Partial<Record<string, unknown>>)[operationId];
  return typeof handler === 'function' ? (handler as AnyHandler) : undefined;
}

type AnyHandler = (req: ValidatedRequest, ctx: RequestContext) => Promise<HandlerResponse> | HandlerResponse;

/** The headers of an answer no cache may keep (anything private to the caller, or changing). */
export const NO_STORE = Object.freeze({ 'Cache-Control': 'no-store' });
