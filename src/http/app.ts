// Request flow: request id -> route match -> rate limit -> admission (POST /v1/rfq) -> authentication -> body (size and media type)
// -> openapi-backend (validation, dispatch by operationId) -> handler -> one place writes the response.
// The steps: src/http/request-begin.ts (request id, access line), src/http/serve.ts (the rest),
// src/http/route-rate-limit.ts, src/http/respond.ts (the response); this file orders them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response, type NextFunction } from 'express';
import type { Store } from 'express-rate-limit';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Context, OpenAPIBackend } from 'openapi-backend';
import type { Logger } from '../logger.js';
import type { TokenResolver } from './auth.js';
import { createOpenApiBackend, freezeOperations } from './openapi.js';
import type { HttpMetrics } from './metrics.js';
import { handlerFor, type Handlers } from './handler.js';
import { createAuditedDispatch } from './audit.js';
import type { LaneResponse } from './respond.js';
import type { Em } from '../db/orm.js';
import { createClientAddress, type ClientAddress } from './client-address.js';
import { createBegin, pathOf, type Begin } from './request-begin.js';
import { createRouteRateLimit, type RouteRateLimit } from './route-rate-limit.js';
import { createServe, createValidGets, type Extras, type Serve, type ValidGets } from './serve.js';
import type { AdmissionGate } from './admission.js';

export interface AppDeps {
  logger: Logger;
  document: OpenAPIV3_1.Document;
  handlers: Handlers;
  /** Forks the ORM's entity manager: called at most once per request, when a handler first uses `ctx.db`. */
  forkDb: () => Em;
  resolveToken: TokenResolver;
  metrics: HttpMetrics;
  /** Requests per minute per client address (0 disables). */
  rateLimitPerMinute: number;
  /** Shared counters across API processes (src/http/rate-limit-store.ts); in-process memory when absent. */
  rateLimitStore?: Store | undefined;
  /** Who the client is (TRUST_PROXY, src/http/client-address.ts); default: the TCP peer. */
  clientAddress?: ClientAddress;
  /** Mounted after request ids and before rate limiting and dispatch (CORS, published documents, docs portal). */
  routes?: express.RequestHandler[];
  /** Admission control of POST /v1/rfq (src/http/admission.ts): after the rate limit, before authentication. */
  admit?: AdmissionGate;
}

/** The HTTP server's request listener: the fast lane or express. */
export async function createApp(deps: AppDeps): Promise<(req: IncomingMessage, res: ServerResponse) => void> {
  const { logger, document, metrics } = deps;
  const api = await createDispatchApi(document, deps.handlers, deps.forkDb);
  const begin = createBegin(logger, metrics, deps.clientAddress ?? createClientAddress({ kind: 'off' }));
  const limit = createRouteRateLimit(document, deps.rateLimitPerMinute, deps.rateLimitStore);
  const validGets = createValidGets();
  const serve = createServe({ api, document, resolveToken: deps.resolveToken, forkDb: deps.forkDb, limit, validGets, admit: deps.admit });
  // Express's lane, in order: begin every request, the extra routes, then serve.
  const app = expressApp([beginEvery(begin), ...(deps.routes ?? []), serveRest(serve, validGets)]);
  const fastLane = createFastLane(begin, serve, validGets, limit, metrics);
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!fastLane(req, res)) app(req, res);
  };
}

/** openapi-backend with every handler registered, dispatching through the audited dispatch (src/http/audit.ts). */
async function createDispatchApi(document: OpenAPIV3_1.Document, handlers: Handlers, forkDb: () => Em): Promise<OpenAPIBackend> {
  const operationIds = collectOperationIds(document);
  // Handlers with no operation in the spec are a programming error: fail at start-up, not at request time.
  for (const id of Object.keys(handlers)) if (!operationIds.has(id)) throw new Error(`handler ${id} has no operation in spec/openapi.yaml`);
  // Operations without a handler fall to openapi-backend's notImplemented: 501 NOT_IMPLEMENTED.
  const audited = createAuditedDispatch(document, forkDb);
  const api = createOpenApiBackend(document, new Set(Object.keys(handlers)), async (c: Context, ...args: unknown[]) => {
    const extras = args[0] as Extras;
    const handler = handlerFor(handlers, c.operation.operationId!);
    if (!handler) throw new Error(`no handler for ${c.operation.operationId}`);
    const request = {
      operationId: c.operation.operationId!,
      params: c.request.params,
      query: c.request.query,
      body: c.request.requestBody,
      contentType: extras.contentType,
      headers: c.request.headers as Record<string, string | string[] | undefined>,
      method: c.request.method.toUpperCase(),
      path: c.request.path,
    };
    return audited(handler, request, extras.ctx); // an operator's write leaves its audit row (src/http/audit.ts)
  });
  for (const name of Object.keys(document.components?.securitySchemes ?? {})) {
    api.registerSecurityHandler(name, () => true); // authentication already ran in authenticate() (src/http/serve.ts)
  }
  await api.init();
  freezeOperations(api);
  return api;
}

function expressApp(middleware: express.RequestHandler[]): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.set('trust proxy', false);
  for (const handler of middleware) app.use(handler);
  return app;
}

const beginEvery =
  (begin: Begin): express.RequestHandler =>
  (req: Request, res: Response, next: NextFunction) => {
    begin(req, res as LaneResponse);
    next();
  };

// A GET whose URL was validated before (validatedByUrl) skips matching, the input guard, validation
// and parsing: they would give the same answer. Authentication and everything else still run.
const serveRest =
  (serve: Serve, validGets: ValidGets): express.RequestHandler =>
  (req: Request, res: Response) => {
    const known = req.method === 'GET' ? validGets.get(req.url) : undefined;
    void serve(req, res as LaneResponse, req.path, known, req.query as Record<string, unknown>);
  };

// The fast lane: a GET of a URL validated before, with no Origin (no CORS headers to add) on a route
// without a rate limit, skips express (its router, its request and response prototypes) and goes from
// begin() straight to serve(): the same steps, status, headers and bytes (app-lanes.int.test.ts).
// Every other request goes through express as before.
function createFastLane(begin: Begin, serve: Serve, validGets: ValidGets, limit: RouteRateLimit | undefined, metrics: HttpMetrics) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    // Origin-form targets only ("/path?query"): express's req.path is then the text before '?' (pathOf).
    if (req.method !== 'GET' || req.headers.origin !== undefined || req.url?.[0] !== '/') return false;
    const known = validGets.get(req.url);
    if (!known || limit?.covers(known.operation.operationId!)) return false;
    const lane = Object.assign(res, { locals: {} as Record<string, unknown> });
    metrics.fastLane.inc();
    begin(req, lane);
    void serve(req, lane, pathOf(req.url), known, undefined);
    return true;
  };
}

function collectOperationIds(document: OpenAPIV3_1.Document): Set<string> {
  const ids = new Set<string>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const [key, op] of Object.entries(item ?? {})) {
      const operationId = (op as OpenAPIV3_1.OperationObject | undefined)?.operationId;
      if (key !== 'parameters' && operationId) ids.add(operationId);
    }
  }
  return ids;
}
