// The lobby: newest first (created_at_ms desc, id desc), one keyset page at a time. The cursor is the last
// row's (created_at_ms, id) plus the filters it was made for, base64url-encoded JSON followed by an
// HMAC-SHA256 tag under the database's `lobby_cursor` key (service_keys); anything else (a forged or edited
// cursor, or one replayed with other filters) is 400 INVALID_CURSOR. Each filter combination has its own index, so
// a page costs the same on page 1 and page 5,000 and whatever the table's size.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { ValidationFailed } from '../errors.js';
import { cursorKey } from '../keyset-cursor.js';
import { contestFromRow, type ContestRecord, type ContestStatus } from './records.js';
import type { Category } from './images.js';
import { repos } from '../../db/repos.js';

export interface LobbyQuery {
  status?: ContestStatus | undefined;
  category?: Category | undefined;
  cursor?: string | undefined;
  limit: number;
}

interface Cursor {
  c: number;
  i: string;
  s: string | null;
  g: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export { clampLimit } from '../page-limits.js';

const tag = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, 16);

export function encodeCursor(key: Buffer, c: Cursor): string {
  const payload = Buffer.from(JSON.stringify(c)).toString('base64url');
  return `${payload}.${tag(key, payload).toString('base64url')}`;
}

export function decodeCursor(key: Buffer, raw: string, q: Pick<LobbyQuery, 'status' | 'category'>): Cursor {
  const invalid = (why: string) =>
    new ValidationFailed(`The cursor is not valid: ${why}. Use next_cursor from a previous page, unchanged.`, null, 'INVALID_CURSOR');
  let v: unknown;
  try {
    const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(raw);
    if (!m) throw new Error('malformed');
    const given = Buffer.from(m[2]!, 'base64url');
    if (given.length !== 16 || !timingSafeEqual(given, tag(key, m[1]!))) throw new Error('bad tag');
    v = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
  } catch {
    throw invalid('it was not produced by this service');
  }
  const o = v as Partial<Cursor> | null;
  if (
    !o ||
    typeof o !== 'object' ||
    !Number.isSafeInteger(o.c) ||
    typeof o.i !== 'string' ||
    !UUID.test(o.i) ||
    !('s' in o) ||
    !('g' in o)
  ) {
    throw invalid('it was not produced by this service');
  }
  if ((o.s ?? null) !== (q.status ?? null) || (o.g ?? null) !== (q.category ?? null)) {
    throw invalid('it belongs to a listing with other filters (status and category must stay the same while paging)');
  }
  return o as Cursor;
}

export interface LobbyPage {
  contests: ContestRecord[];
  nextCursor: string | null;
}

export async function listContests(em: Em, q: LobbyQuery): Promise<LobbyPage> {
  const key = await cursorKey(em);
  const c = q.cursor ? decodeCursor(key, q.cursor, q) : null;
  const rows = await repos(em).contests.lobbyPage({
    status: q.status,
    category: q.category,
    after: c ? { createdAtMs: c.c, id: c.i } : undefined,
    limit: q.limit + 1,
  });
  const contests = rows.slice(0, q.limit).map(contestFromRow);
  const last = contests[contests.length - 1];
  const nextCursor =
    rows.length > q.limit && last
      ? encodeCursor(key, { c: last.createdAtMs, i: last.id, s: q.status ?? null, g: q.category ?? null })
      : null;
  return { contests, nextCursor };
}
