// The one place a response is written, in either lane of src/http/app.ts: a handler's result, or an error in
// the one error body (src/http/errors.ts).
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { closeIfBodyUnread } from './body.js';
import { toErrorResponse } from './errors.js';
import type { HandlerResponse } from './handler.js';
import { jsonPayload } from './json-body.js';
import { matchesEtag } from './docs/documents.js';

/** A response in either lane: express's, or node's with the `locals` the fast lane gives it. */
export type LaneResponse = ServerResponse & { locals: Record<string, unknown> };

export function writeResult(res: LaneResponse, result: HandlerResponse): void {
  for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
  closeIfBodyUnread(res);
  res.statusCode = result.status;
  if (result.raw) {
    res.setHeader('Content-Type', result.raw.contentType);
    res.end(result.raw.data);
  } else if (result.status === 204 || result.body === undefined) {
    res.end();
  } else {
    const payload = jsonPayload(result.body);
    if (answeredNotModified(res, payload)) return;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(payload);
  }
}

/**
 * Conditional GET of public reads, so a CDN or proxy in front can revalidate them (docs/operations.md,
 * "Caching public reads"): a GET answered 200 with a `Cache-Control: public...` of its handler and no ETag
 * of its own gets a strong ETag over its bytes, and a 304 without a body when `If-None-Match` names it.
 */
function answeredNotModified(res: LaneResponse, payload: Buffer | string): boolean {
  const req = res.req as ServerResponse['req'] | undefined;
  if (res.statusCode !== 200 || req?.method !== 'GET' || res.hasHeader('ETag')) return false;
  const cacheControl = res.getHeader('Cache-Control');
  if (typeof cacheControl !== 'string' || !cacheControl.startsWith('public')) return false;
  const etag = etagOf(payload);
  res.setHeader('ETag', etag);
  const ifNoneMatch = req.headers['if-none-match'];
  if (!matchesEtag(Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch, etag)) return false;
  res.statusCode = 304;
  res.end();
  return true;
}

/** A preserialized body (src/http/json-body.ts) is the same Buffer on every hit: its ETag is hashed once. */
const etags = new WeakMap<Buffer, string>();
function etagOf(payload: Buffer | string): string {
  const known = typeof payload === 'string' ? undefined : etags.get(payload);
  if (known) return known;
  const etag = `"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
  if (typeof payload !== 'string') etags.set(payload, etag);
  return etag;
}

export function writeError(res: LaneResponse, err: unknown, log?: Logger, requestId?: string): void {
  const id = requestId ?? (res.locals.requestId as string) ?? 'unknown';
  const out = toErrorResponse(err, id);
  if (out.unexpected) (log ?? (res.locals.logOf as (() => Logger) | undefined)?.())?.error({ err }, 'unhandled error');
  res.locals.errorCode = out.body.code;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [k, v] of Object.entries(out.headers)) res.setHeader(k, v);
  // A body we did not read (413, 415, early 401/403/404/405/429) must not be drained or parsed as the next request.
  if (out.status === 413 || out.status === 415) res.setHeader('Connection', 'close');
  else closeIfBodyUnread(res);
  res.statusCode = out.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(out.body));
}
