// The lobby: newest first (created_at_ms desc, id desc), one keyset page at a time. The cursor is the last
// row's (created_at_ms, id) plus the filters it was made for, base64url-encoded JSON; anything else (or a
// cursor replayed with other filters) is 400 INVALID_CURSOR. Each filter combination has its own index, so
// a page costs the same on page 1 and page 5,000 and whatever the table's size.
import type { Em } from '../../db/orm.js';
import { ValidationFailed } from '../errors.js';
import { CONTEST_COLUMNS, contestFromRow, type ContestRecord, type ContestRow, type ContestStatus } from './records.js';
import type { Category } from './images.js';

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

export const clampLimit = (n: number | undefined, def: number, max: number) => Math.min(max, Math.max(1, n ?? def));

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

export function decodeCursor(raw: string, q: Pick<LobbyQuery, 'status' | 'category'>): Cursor {
  const invalid = (why: string) => new ValidationFailed(`The cursor is not valid: ${why}. Use next_cursor from a previous page, unchanged.`, null, 'INVALID_CURSOR');
  let v: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid('it was not produced by this service');
  }
  const o = v as Partial<Cursor> | null;
  if (!o || typeof o !== 'object' || !Number.isSafeInteger(o.c) || typeof o.i !== 'string' || !UUID.test(o.i) || !('s' in o) || !('g' in o)) {
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
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.status) {
    where.push('status = ?');
    params.push(q.status);
  }
  if (q.category) {
    where.push('category = ?');
    params.push(q.category);
  }
  if (q.cursor) {
    const c = decodeCursor(q.cursor, q);
    where.push('(created_at_ms, id) < (?::bigint, ?::uuid)');
    params.push(c.c, c.i);
  }
  params.push(q.limit + 1);
  const rows = await em.execute<ContestRow[]>(
    `select ${CONTEST_COLUMNS} from contests ${where.length ? `where ${where.join(' and ')}` : ''} order by created_at_ms desc, id desc limit ?`,
    params,
  );
  const contests = rows.slice(0, q.limit).map(contestFromRow);
  const last = contests[contests.length - 1];
  const nextCursor =
    rows.length > q.limit && last ? encodeCursor({ c: last.createdAtMs, i: last.id, s: q.status ?? null, g: q.category ?? null }) : null;
  return { contests, nextCursor };
}
