import type { Logger } from '../logger.js';
import type { Auth } from './auth.js';

export interface HandlerRequest {
  operationId: string;
  requestId: string;
  /** Path parameters, validated and coerced by the spec. */
  params: Record<string, unknown>;
  /** Query parameters, validated and coerced (defaults applied) by the spec. */
  query: Record<string, unknown>;
  /** JSON body (validated by the spec) or raw bytes for binary media types. */
  body: unknown;
  contentType: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  auth: Auth;
  log: Logger;
}

export interface HandlerResponse {
  status: number;
  /** JSON body; omitted for 204. */
  body?: unknown;
  /** Raw body with its content type (images, Prometheus text). */
  raw?: { data: Buffer | string; contentType: string };
  headers?: Record<string, string>;
}

export type Handler = (req: HandlerRequest) => Promise<HandlerResponse> | HandlerResponse;
export type Handlers = Record<string, Handler>;
