// openapi-backend set up for OpenAPI 3.1 (docs/dependencies.md): quick mode, Ajv 2020 with formats,
// plain request objects, and every failure path registered so nothing unvalidated reaches a handler.
import { OpenAPIBackend, type Context, type Operation, type Request as OabRequest } from 'openapi-backend';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { default as addFormatsModule } from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { NotFound, AppError, NotImplemented } from '../domain/errors.js';
import { validationFailed } from './errors.js';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type Dispatch = (c: Context, ...args: unknown[]) => Promise<unknown>;

export class MethodNotAllowed extends AppError {
  constructor(method: string, path: string, allow: string[]) {
    super(
      405,
      'METHOD_NOT_ALLOWED',
      `${method} is not allowed on ${path}; allowed: ${allow.join(', ')}`,
      { allow },
      { Allow: allow.join(', ') },
    );
  }
}

export function createOpenApiBackend(document: OpenAPIV3_1.Document, operationIds: Set<string>, dispatch: Dispatch): OpenAPIBackend {
  const api = new OpenAPIBackend({
    definition: document as never,
    quick: true,
    strict: false,
    validate: true,
    coerceTypes: true,
    ignoreTrailingSlashes: false,
    ajvOpts: { allErrors: true, strict: false },
    customizeAjv: (_ajv, opts, context) => {
      const ajv = new Ajv2020({ ...(opts as object), strict: false, allErrors: true });
      addFormats(ajv);
      // JSON integers in request bodies stay within 2^53-1 also where the format is int64 (spec: Requests).
      if (context === 'requestBodyValidator') ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
      return ajv as never;
    },
  });
  for (const id of operationIds) api.register(id, (c, ...args) => dispatch(c, ...args));
  api.register({
    validationFail: (c) => {
      throw validationFailed(c.validation.errors as never);
    },
    notFound: (c) => {
      const allow = allowedMethods(api, c.request.path);
      if (allow.length) throw new MethodNotAllowed(c.request.method.toUpperCase(), c.request.path, allow);
      throw new NotFound('NOT_FOUND', `no route ${c.request.method.toUpperCase()} ${c.request.path}; see the OpenAPI document`);
    },
    methodNotAllowed: (c) => {
      throw new MethodNotAllowed(c.request.method.toUpperCase(), c.request.path, allowedMethods(api, c.request.path));
    },
    notImplemented: (c) => {
      throw new NotImplemented(c.operation?.operationId ?? 'operation');
    },
  });
  return api;
}

/** Methods with an operation on this path (for 405 and its Allow header). */
export function allowedMethods(api: OpenAPIBackend, path: string): string[] {
  const found: string[] = [];
  for (const method of HTTP_METHODS) {
    const req: OabRequest = { method, path, headers: {} };
    if (api.router.matchOperation(req)) found.push(method.toUpperCase());
  }
  return found;
}

/**
 * openapi-backend rebuilds its flattened operation list (a lodash chain over the document) on every match and
 * every getOperation(); the document is fixed once init() has run, so the list is computed once. Its
 * matchOperation also compiles a RegExp per templated path on every request: the non-strict match (the one
 * app.ts and allowedMethods use) is compiled once here with the same rules (an exact path with the method
 * first, then the templated paths that match, the longest literal part first, in document order on ties).
 * A strict match (handleRequest's, for unmatched requests' 404/405) keeps the library's own code.
 */
export function freezeOperations(api: OpenAPIBackend): void {
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  const exact = new Map<string, Operation>();
  for (const op of operations) if (!exact.has(`${op.method} ${op.path}`)) exact.set(`${op.method} ${op.path}`, op);
  const literalLength = (path: string) => path.replace(/\{.*?\}/g, '').length;
  const templates = operations
    .map((op, i) => ({ op, i, re: new RegExp(templatePattern(op.path)), literal: literalLength(op.path) }))
    .sort((a, b) => b.literal - a.literal || a.i - b.i);
  const router = api.router;
  if (router.apiRoot !== '/') throw new Error(`freezeOperations assumes the API root '/', not ${router.apiRoot}`);
  const libraryMatch = router.matchOperation.bind(router);
  router.matchOperation = ((req: OabRequest, strict?: boolean) => {
    if (strict) return libraryMatch(req, true);
    const normalized = router.normalizeRequest(req);
    // The API root is '/' (createOpenApiBackend sets none), so a path is under it when it starts with '/'.
    if (!normalized.path.startsWith('/')) return undefined;
    const path = router.normalizePath(normalized.path);
    const found = exact.get(`${normalized.method} ${path}`);
    if (found) return found;
    for (const t of templates) if (t.op.method === normalized.method && t.re.test(path)) return t.op;
    return undefined;
  }) as typeof router.matchOperation;
}

/** openapi-backend's pathTemplateToPattern: `{param}` matches one segment, literal parts are escaped. */
function templatePattern(path: string): string {
  const escape = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `^${path
    .replace(/\{[^}]+\}/g, '\0')
    .split('\0')
    .map(escape)
    .join('[^/]+')}$`;
}

/**
 * `handleRequest` for a request whose operation the caller has already matched (with `api.matchOperation`),
 * so the route is matched once: the same steps as handleRequest after its routing (security handlers are all
 * `() => true` here, authentication ran before), then validation against the spec, coercion, dispatch.
 * `remember` is given the validated context before dispatch (see redispatch).
 */
export async function handleMatched(
  api: OpenAPIBackend,
  operation: Operation,
  req: OabRequest,
  remember: ((valid: Context) => void) | undefined,
  ...args: unknown[]
): Promise<unknown> {
  const context = { api, operation, security: { authorized: true } } as unknown as Context;
  context.validation = api.validator.validateRequest(req, operation);
  // The request as sent is parsed only for a failure's handler; a valid one is parsed once, coerced, below.
  if (context.validation.errors) {
    context.request = api.router.parseRequest(req, operation);
    return api.handlers.validationFail!(context, ...args);
  }
  context.request = api.router.parseRequest(context.validation.coerced, operation);
  // parseRequest re-reads path parameters from the path (text); the validator's coerced ones are typed
  // (an integer `market_id` arrives as a number, as the generated operation types say).
  // Beyond 2^53 a number would not be the value sent: such a parameter stays text (the handler names it as sent).
  const coercedParams = (context.validation.coerced as { params?: Record<string, unknown> }).params ?? {};
  for (const [name, v] of Object.entries(coercedParams)) {
    if (typeof v !== 'number' || Number.isSafeInteger(v)) (context.request.params as Record<string, unknown>)[name] = v;
  }
  // Remembered without this request's headers (its credentials stay with it) nor the validator's copy of it.
  if (remember) remember({ ...withOwnInputs(context, {}), validation: { valid: true, errors: null } } as Context);
  return dispatchValid(api, context, args);
}

/**
 * Whether a valid request's validated form is a function of its method and URL alone: a GET without a body
 * whose operation reads no header or cookie parameter (the request's own headers are still passed on).
 */
export function validatedByUrl(operation: Operation): boolean {
  const params = (operation.parameters ?? []) as Array<{ in?: string }>;
  return operation.method === 'get' && !operation.requestBody && params.every((p) => p.in === 'path' || p.in === 'query');
}

/**
 * Dispatches a request identical in method and URL to one handleMatched validated (`valid`, remembered for an
 * operation where validatedByUrl holds): the same params and query (copied, so no handler shares them), this
 * request's headers. Skips validation and parsing, which would give the same answer.
 */
export function redispatch(
  api: OpenAPIBackend,
  valid: Context,
  headers: Record<string, string | string[] | undefined>,
  ...args: unknown[]
) {
  return dispatchValid(api, withOwnInputs(valid, headers as Context['request']['headers']), args);
}

/** A copy of a parsed params or query object (arrays copied too). */
function copyInputs(o: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in o as Record<string, unknown>) {
    const v = (o as Record<string, unknown>)[k];
    out[k] = Array.isArray(v) ? [...(v as unknown[])] : v;
  }
  return out;
}

/** The context with its own copies of params and query (and the given headers: this request's own), so no two handlers share them. */
function withOwnInputs(c: Context, headers = c.request.headers): Context {
  return { ...c, request: { ...c.request, params: copyInputs(c.request.params), query: copyInputs(c.request.query), headers } } as Context;
}

function dispatchValid(api: OpenAPIBackend, context: Context, args: unknown[]): Promise<unknown> {
  const handler = api.handlers[context.operation.operationId!] ?? api.handlers.notImplemented!;
  return handler(context, ...args);
}
