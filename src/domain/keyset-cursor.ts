// Signed keyset cursors for the trading lists (RFQs, positions, PnL history, maker fills): the last row's
// (time, id) plus the filters the page was made for and the list's kind, base64url JSON followed by an
// HMAC-SHA256 tag under the database's cursor key (service_keys, as the lobby's). Anything else (forged,
// edited, from another list, replayed with other filters) is 400 INVALID_CURSOR.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Em } from '../db/orm.js';
import { cursorKey } from './contests/lobby.js';
import { isUuid, ValidationFailed } from './errors.js';

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
const invalid = (why: string) =>
  new ValidationFailed(`The cursor is not valid: ${why}. Use next_cursor from a previous page, unchanged.`, null, 'INVALID_CURSOR');

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
    const payload = Buffer.from(JSON.stringify({ k: this.kind, c: k.atMs, i: k.id, f: filters } satisfies Wire)).toString('base64url');
    return `${payload}.${tag(this.key, payload).toString('base64url')}`;
  }

  decode(raw: string | undefined, filters: string | null): Keyset | null {
    if (raw === undefined) return null;
    let o: Partial<Wire> | null;
    try {
      const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(raw);
      if (!m) throw new Error('malformed');
      const given = Buffer.from(m[2]!, 'base64url');
      if (given.length !== 16 || !timingSafeEqual(given, tag(this.key, m[1]!))) throw new Error('bad tag');
      o = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as Partial<Wire> | null;
    } catch {
      throw invalid('it was not produced by this service');
    }
    if (!o || !Number.isSafeInteger(o.c) || typeof o.i !== 'string' || !isUuid(o.i)) throw invalid('it was not produced by this service');
    if (o.k !== this.kind) throw invalid(`it belongs to another listing (${String(o.k)}), not ${this.kind}`);
    if ((o.f ?? null) !== filters) throw invalid('it belongs to a listing with other filters (keep the filters the same while paging)');
    return { atMs: o.c!, id: o.i };
  }
}
