// Request flow: request id -> rate limit -> route match -> body (size and media type) -> authentication
// -> openapi-backend (validation, dispatch by operationId) -> handler -> one place writes the response.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response, type NextFunction } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Context } from 'openapi-backend';
import { unredactedTwin, type Logger } from '../logger.js';
import { authenticate, type Auth, type TokenResolver } from './auth.js';
import { createOpenApiBackend, freezeOperations, handleMatched, redispatch, validatedByUrl } from './openapi.js';
import { hasBody, JSON_LIMIT_BYTES, mediaType, parseJson, readRaw, UnsupportedMediaType } from './body.js';
import { guardRequest } from './input-guard.js';
import type { HttpMetrics } from './metrics.js';
import { handlerFor, type HandlerResponse, type Handlers } from './handler.js';
import { createRequestContext, type RequestContext } from './context.js';
import { createAuditedDispatch } from './audit.js';
import { writeError, writeResult, type LaneResponse } from './respond.js';
import type { Em } from '../db/orm.js';
import { AppError } from '../domain/errors.js';
import { clientNetwork, createClientAddress, type ClientAddress } from './client-address.js';

export const BINARY_LIMIT_BYTES = 2 * 1024 * 1024;
const UNMETERED = new Set(['getHealth', 'getReadiness', 'getMetrics']);
/** Validated GET URLs remembered per app (oldest dropped first). */
const VALID_GETS_KEPT = 2000;

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
}

interface Extras {
  ctx: RequestContext;
  contentType: string | undefined;
}

type Operation = OpenAPIV3_1.OperationObject & { operationId: string; security?: OpenAPIV3_1.SecurityRequirementObject[] };

/** The path of an origin-form request target (what express's req.path gives for it: the part before `?` or `#`). */
const pathOf = (url: string): string => {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
};

/** The HTTP server's request listener: the fast lane or express. */
export async function createApp(deps: AppDeps): Promise<(req: IncomingMessage, res: ServerResponse) => void> {
  const { logger, document, handlers, metrics } = deps;
  const access = unredactedTwin(logger);
  const clientAddress = deps.clientAddress ?? createClientAddress({ kind: 'off' });
  const operationIds = collectOperationIds(document);
  // Handlers with no operation in the spec are a programming error: fail at start-up, not at request time.
  for (const id of Object.keys(handlers)) if (!operationIds.has(id)) throw new Error(`handler ${id} has no operation in spec/openapi.yaml`);
  // Operations without a handler fall to openapi-backend's notImplemented: 501 NOT_IMPLEMENTED.
  const audited = createAuditedDispatch(document, deps.forkDb);
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
    api.registerSecurityHandler(name, () => true); // authentication already ran in authenticate() below
  }
  await api.init();
  freezeOperations(api);

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.set('trust proxy', false);

  // Request id, the per-request logger, metrics and the one access line: every request, either lane.
  const begin = (req: IncomingMessage, res: LaneResponse) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    const clientIp = clientAddress(req);
    res.locals.clientIp = clientIp;
    // The request's child logger, made on first use: most requests log nothing but the access line below.
    let child: Logger | undefined;
    res.locals.logOf = () => (child ??= logger.child({ request_id: requestId }));
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const op = (res.locals.operationId as string | undefined) ?? 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (!UNMETERED.has(op)) {
        metrics.requests.inc({ operation: op, method: req.method!, status: String(res.statusCode) });
        metrics.duration.observe({ operation: op, method: req.method! }, seconds);
      }
      const level = res.statusCode >= 500 ? 'error' : UNMETERED.has(op) ? 'debug' : 'info';
      // The same line as through res.locals.logOf() (request_id is its only binding), without the redaction pass.
      access[level](
        {
          request_id: requestId,
          client_ip: clientIp,
          method: req.method,
          path: (req as { path?: string }).path ?? pathOf(req.url ?? '/'), // express's req.path in its lane
          operation_id: op,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1e4) / 10,
          code: res.locals.errorCode,
        },
        'request',
      );
    });
  };
  app.use((req: Request, res: Response, next: NextFunction) => {
    begin(req, res as LaneResponse);
    next();
  });

  for (const handler of deps.routes ?? []) app.use(handler);

  // Only the operations that document 429 are limited (sign-in and money-moving routes), per address.
  const limited = operationsDocumenting(document, '429');
  const limiter =
    deps.rateLimitPerMinute > 0
      ? rateLimit({
          windowMs: 60_000,
          limit: deps.rateLimitPerMinute,
          standardHeaders: 'draft-8',
          legacyHeaders: false,
          ...(deps.rateLimitStore ? { store: deps.rateLimitStore } : {}),
          // Per client network (src/http/client-address.ts: the address TRUST_PROXY defines, IPv6 per /56), never req.ip.
          keyGenerator: (_req, res) => clientNetwork(res.locals.clientIp as string),
          validate: { xForwardedForHeader: false, forwardedHeader: false, trustProxy: false, keyGeneratorIpFallback: false, ip: false },
          handler: (_req, _res, next, options) => {
            const retryAfter = String(Math.ceil(options.windowMs / 1000));
            next(
              new AppError(429, 'RATE_LIMITED', `too many requests: at most ${options.limit} a minute from one address on this route group`, null, {
                'Retry-After': retryAfter,
              }),
            );
          },
        })
      : undefined;
  const applyRateLimit = (req: Request, res: Response) =>
    new Promise<void>((resolve, reject) => {
      void limiter!(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });

  const validGets = new Map<string, Context>();
  const rememberGet = (url: string, valid: Context) => {
    if (validGets.size >= VALID_GETS_KEPT) validGets.delete(validGets.keys().next().value!);
    validGets.set(url, valid);
  };

  // The request after begin(): match (or the remembered validation of its URL), rate limit, authenticate,
  // read and guard the body, validate, dispatch, write. Node's request and response API only, so that the
  // fast lane can call it without express. `rawQuery`: express's parsed query (unused when `known`).
  const serve = async (
    req: IncomingMessage,
    res: LaneResponse,
    reqPath: string,
    known: Context | undefined,
    rawQuery: Record<string, unknown> | undefined,
  ) => {
    const log = res.locals.logOf as () => Logger;
    const requestId = res.locals.requestId as string;
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
        if (limiter && limited.has(operation.operationId)) await applyRateLimit(req as Request, res as unknown as Response);
        auth = await authenticate(operation.security ?? document.security, req.headers.authorization, deps.resolveToken);
        if (!known) ({ body, contentType } = await readBody(req, operation));
        if (!known) ({ path, query } = guardRequest(operation as Operation & { path: string }, reqPath, query, body));
      }
      // Matched once: a matched request goes straight to validation and dispatch; an unmatched one to
      // handleRequest, whose routing failure answers 404/405.
      const oabRequest = { method: req.method!, path, query: query as Record<string, string>, headers: req.headers as Record<string, string>, body };
      const extras = {
        ctx: createRequestContext(deps.forkDb, { log, auth, requestId, clientIp: res.locals.clientIp as string }),
        contentType,
      } satisfies Extras;
      const remember =
        req.method === 'GET' && operation && validatedByUrl(operation as never) ? (valid: Context) => rememberGet(url, valid) : undefined;
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
    }
  };
  app.use((req: Request, res: Response) => {
    // A GET whose URL was validated before (validatedByUrl) skips matching, the input guard, validation
    // and parsing: they would give the same answer. Authentication and everything else still run.
    const known = req.method === 'GET' ? validGets.get(req.url) : undefined;
    void serve(req, res as LaneResponse, req.path, known, req.query as Record<string, unknown>);
  });

  // The fast lane: a GET of a URL validated before, with no Origin (no CORS headers to add) on a route
  // without a rate limit, skips express (its router, its request and response prototypes) and goes from
  // begin() straight to serve(): the same steps, status, headers and bytes (app-lanes.int.test.ts).
  // Every other request goes through express as before.
  const fastLane = (req: IncomingMessage, res: ServerResponse): boolean => {
    // Origin-form targets only ("/path?query"): express's req.path is then the text before '?' (pathOf).
    if (req.method !== 'GET' || req.headers.origin !== undefined || req.url?.[0] !== '/') return false;
    const known = validGets.get(req.url);
    if (!known || (limiter && limited.has(known.operation.operationId!))) return false;
    const lane = Object.assign(res, { locals: {} as Record<string, unknown> });
    metrics.fastLane.inc();
    begin(req, lane);
    void serve(req, lane, pathOf(req.url), known, undefined);
    return true;
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!fastLane(req, res)) app(req, res);
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

function operationsDocumenting(document: OpenAPIV3_1.Document, status: string): Set<string> {
  const ids = new Set<string>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of Object.values(item ?? {}) as Array<OpenAPIV3_1.OperationObject | undefined>) {
      if (op?.operationId && op.responses && status in op.responses) ids.add(op.operationId);
    }
  }
  return ids;
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
