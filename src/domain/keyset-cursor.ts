// Signed keyset cursors for the trading and history lists (RFQs, positions, PnL history, maker fills, operations): the last row's
// (time, id) plus the filters the page was made for and the list's kind, base64url JSON followed by an
// HMAC-SHA256 tag under the database's cursor key (service_keys, as the lobby's). Anything else (forged,
// edited, from another list, replayed with other filters) is 400 INVALID_CURSOR.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Em } from '../db/orm.js';
import { isUuid, ValidationFailed } from './errors.js';
import { repos } from '../db/repos.js';

export interface Keyset {
  /** Epoch ms of the last row (created_at_ms or resolved_at_ms). */
  atMs: number;
  id: string;
}

interface Wire {
  k: string;
  c: number;
  i: string;
  f: string | null;
}

const tag = (key: Buffer, payload: string) => createHmac('sha256', key).update(`keyset:${payload}`).digest().subarray(0, 16);
export const invalidCursor = (why: string) =>
  new ValidationFailed(`The cursor is not valid: ${why}. Use next_cursor from a previous page, unchanged.`, null, 'INVALID_CURSOR');

/** Any JSON payload as a cursor: base64url JSON, a `.`, and its tag under `key`. */
export function sealCursor(key: Buffer, payload: object): string {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${text}.${tag(key, text).toString('base64url')}`;
}

/** The payload of a cursor sealCursor made under `key`; anything else is 400 INVALID_CURSOR. The caller checks its shape. */
export function openCursor(key: Buffer, raw: string): unknown {
  try {
    const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(raw);
    if (!m) throw new Error('malformed');
    const given = Buffer.from(m[2]!, 'base64url');
    if (given.length !== 16 || !timingSafeEqual(given, tag(key, m[1]!))) throw new Error('bad tag');
    return JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as unknown;
  } catch {
    throw invalidCursor('it was not produced by this service');
  }
}

let cachedKey: Promise<Buffer> | null = null;

/**
 * The database's cursor key (service_keys' `lobby_cursor`, created by the contests migration), the key of every
 * signed cursor (the lobby's, these lists', the statement's); read once per process.
 */
export function cursorKey(em: Em): Promise<Buffer> {
  cachedKey ??= repos(em)
    .contests.lobbyCursorKey()
    .then((row) => {
      if (!row) throw new Error('service_keys has no lobby_cursor key (migrations not applied?)');
      return Buffer.from(row.key);
    })
    .catch((err: unknown) => {
      cachedKey = null;
      throw err;
    });
  return cachedKey;
}

export class KeysetCursors {
  constructor(
    private readonly kind: string,
    private readonly key: Buffer,
  ) {}

  static async of(em: Em, kind: string): Promise<KeysetCursors> {
    return new KeysetCursors(kind, await cursorKey(em));
  }

  /** `filters`: what the listing was filtered by (canonical text), or null. */
  encode(k: Keyset, filters: string | null): string {
    return sealCursor(this.key, { k: this.kind, c: k.atMs, i: k.id, f: filters } satisfies Wire);
  }

  decode(raw: string | undefined, filters: string | null): Keyset | null {
    if (raw === undefined) return null;
    const o = openCursor(this.key, raw) as Partial<Wire> | null;
    if (!o || !Number.isSafeInteger(o.c) || typeof o.i !== 'string' || !isUuid(o.i))
      throw invalidCursor('it was not produced by this service');
    if (o.k !== this.kind) throw invalidCursor(`it belongs to another listing (${String(o.k)}), not ${this.kind}`);
    if ((o.f ?? null) !== filters)
      throw invalidCursor('it belongs to a listing with other filters (keep the filters the same while paging)');
    return { atMs: o.c!, id: o.i };
  }
}
