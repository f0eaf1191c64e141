// The request after src/http/request-begin.ts, in either lane of src/http/app.ts: match (or the remembered
// validation of its URL), rate limit, authenticate, read and guard the body, validate, dispatch, write.
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Context, OpenAPIBackend } from 'openapi-backend';
import type { Logger } from '../logger.js';
import type { Em } from '../db/orm.js';
import { authenticate, type Auth, type TokenResolver } from './auth.js';
import { handleMatched, redispatch, validatedByUrl } from './openapi.js';
import { hasBody, JSON_LIMIT_BYTES, mediaType, parseJson, readRaw, UnsupportedMediaType } from './body.js';
import { guardRequest } from './input-guard.js';
import type { HandlerResponse } from './handler.js';
import { createRequestContext, type RequestContext } from './context.js';
import { writeError, writeResult, type LaneResponse } from './respond.js';
import type { RouteRateLimit } from './route-rate-limit.js';
import type { AdmissionGate } from './admission.js';

export const BINARY_LIMIT_BYTES = 2 * 1024 * 1024;
/** Validated GET URLs remembered per app (oldest dropped first). */
const VALID_GETS_KEPT = 2000;

/** What the dispatch of src/http/app.ts receives beside openapi-backend's context. */
export interface Extras {
  ctx: RequestContext;
  contentType: string | undefined;
}

type Operation = OpenAPIV3_1.OperationObject & { operationId: string; security?: OpenAPIV3_1.SecurityRequirementObject[] };

/** The validated form of GET URLs whose validation depends on the URL alone (validatedByUrl), by URL. */
export interface ValidGets {
  get(url: string): Context | undefined;
  remember(url: string, valid: Context): void;
}

export function createValidGets(): ValidGets {
  const kept = new Map<string, Context>();
  return {
    get: (url) => kept.get(url),
    remember: (url, valid) => {
      if (kept.size >= VALID_GETS_KEPT) kept.delete(kept.keys().next().value!);
      kept.set(url, valid);
    },
  };
}

export interface ServeDeps {
  api: OpenAPIBackend;
  document: OpenAPIV3_1.Document;
  resolveToken: TokenResolver;
  forkDb: () => Em;
  limit: RouteRateLimit | undefined;
  validGets: ValidGets;
  /** Admission control of POST /v1/rfq (src/http/admission.ts), before authentication and the body. */
  admit?: AdmissionGate | undefined;
}

/**
 * `known`: the remembered validation of the URL, if any. `rawQuery`: express's parsed query (unused when
 * `known`). Node's request and response API only, so that the fast lane can call it without express.
 */
export type Serve = (
  req: IncomingMessage,
  res: LaneResponse,
  reqPath: string,
  known: Context | undefined,
  rawQuery: Record<string, unknown> | undefined,
) => Promise<void>;

export function createServe({ api, document, resolveToken, forkDb, limit, validGets, admit }: ServeDeps): Serve {
  return async (req, res, reqPath, known, rawQuery) => {
    const log = res.locals.logOf as () => Logger;
    const requestId = res.locals.requestId as string;
    let release: (() => void) | undefined;
    try {
      const url = req.url ?? '/';
      const probe = { method: req.method!, path: reqPath, headers: req.headers as Record<string, string> };
      const operation = (known?.operation ?? api.matchOperation(probe)) as Operation | undefined;
      let body: unknown;
      let contentType: string | undefined;
      let auth: Auth = { kind: 'anonymous' };
      let path = reqPath;
      let query = (known ? undefined : rawQuery) as Record<string, unknown>;
      if (operation) {
        res.locals.operationId = operation.operationId;
        if (limit?.covers(operation.operationId)) await limit.apply(req as Request, res as unknown as Response);
        release = admit?.(operation.operationId); // 503 OVERLOADED here costs no authentication and no body
        auth = await authenticate(operation.security ?? document.security, req.headers.authorization, resolveToken);
        if (!known) ({ body, contentType } = await readBody(req, operation));
        if (!known) ({ path, query } = guardRequest(operation as Operation & { path: string }, reqPath, query, body));
      }
      // Matched once: a matched request goes straight to validation and dispatch; an unmatched one to
      // handleRequest, whose routing failure answers 404/405.
      const oabRequest = {
        method: req.method!,
        path,
        query: query as Record<string, string>,
        headers: req.headers as Record<string, string>,
        body,
      };
      const extras = {
        ctx: createRequestContext(forkDb, { log, auth, requestId, clientIp: res.locals.clientIp as string }),
        contentType,
      } satisfies Extras;
      const remember =
        req.method === 'GET' && operation && validatedByUrl(operation as never)
          ? (valid: Context) => validGets.remember(url, valid)
          : undefined;
      const result = (
        known
          ? await redispatch(api, known, req.headers, extras)
          : operation
            ? await handleMatched(api, operation as never, oabRequest, remember, extras)
            : await api.handleRequest(oabRequest, extras)
      ) as HandlerResponse;
      writeResult(res, result);
    } catch (err) {
      writeError(res, err, undefined, requestId);
    } finally {
      release?.();
    }
  };
}

async function readBody(req: IncomingMessage, operation: Operation): Promise<{ body: unknown; contentType: string | undefined }> {
  const requestBody = operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
  if (!requestBody) return { body: undefined, contentType: undefined };
  const accepted = Object.keys(requestBody.content ?? {});
  const type = mediaType(req.headers['content-type']);
  if (!hasBody(req) && !requestBody.required) return { body: undefined, contentType: undefined };
  if (!accepted.includes(type)) throw new UnsupportedMediaType(type, accepted);
  const isJson = type === 'application/json';
  const raw = await readRaw(req, isJson ? JSON_LIMIT_BYTES : BINARY_LIMIT_BYTES);
  if (!isJson) return { body: raw, contentType: type };
  return { body: raw.length === 0 ? undefined : parseJson(raw), contentType: type };
}
