// Reads a request body with the limit of the matched operation, and decides by its media type.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, ValidationFailed } from '../domain/errors.js';

export const JSON_LIMIT_BYTES = 64 * 1024;

export class PayloadTooLarge extends AppError {
  constructor(limit: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `request body exceeds ${limit} bytes`, { limit_bytes: limit });
  }
}
export class UnsupportedMediaType extends AppError {
  constructor(got: string, accepted: string[]) {
    super(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type ${got || '(none)'} is not accepted here; send ${accepted.join(' or ')}`, {
      accepted,
    });
  }
}

export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * A body at most this far over its limit is read to its end (and dropped) before the 413, so a client that
 * is still writing it reads the answer instead of a reset (EPIPE) on a connection closed under it; a
 * larger one is refused at once, unread, and its connection closed.
 */
export const DRAIN_OVER_LIMIT_BYTES = 8 * 1024 * 1024;

export async function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit + DRAIN_OVER_LIMIT_BYTES) throw new PayloadTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit + DRAIN_OVER_LIMIT_BYTES) throw new PayloadTooLarge(limit); // leaves the loop: the request is destroyed
    if (size <= limit) chunks.push(chunk);
  }
  if (size > limit) throw new PayloadTooLarge(limit);
  return Buffer.concat(chunks);
}

export function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export function parseJson(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (err) {
    const reason = (err as Error).message;
    throw new ValidationFailed(`request body is not valid JSON: ${reason}`, [
      { in: 'body', path: '', message: `is not valid JSON: ${reason}` },
    ]);
  }
}

/**
 * A response to a request whose body has not fully arrived (refused before reading it: 401, 403, 404,
 * 405, 429, or a handler that ignores bodies) closes the connection, instead of Node draining a body
 * of any size to keep it alive.
 */
export function closeIfBodyUnread(res: ServerResponse): void {
  const req = res.req;
  if (req && hasBody(req) && !req.complete) res.setHeader('Connection', 'close');
}
