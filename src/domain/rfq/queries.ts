// Reading RFQs: the taker's own (one, or a keyset page newest first with a signed cursor), a maker's
// reconciliation view (any RFQ, its own quotes only), and the sweeper's due list.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { rfqRepository } from '../../db/repositories/rfq.repository.js';
import { db } from '../../db/schema.js';
import { cursorKey } from '../contests/lobby.js';
import { NotFound, ValidationFailed } from '../errors.js';
import type { RfqStatus, RfqWithQuotes } from './records.js';
import { withQuotes } from './rows.js';

const repo = (em: Em) => rfqRepository(db(em));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const rfqNotFound = () => new NotFound('RFQ_NOT_FOUND', 'no RFQ with this id belongs to you');

/** One RFQ with every quote (best first), or null. */
export async function loadRfq(em: Em, rfqId: string): Promise<RfqWithQuotes | null> {
  if (!UUID.test(rfqId)) return null;
  const row = await repo(em).get(rfqId);
  if (!row) return null;
  return withQuotes([row], await repo(em).quotes([rfqId]))[0]!;
}

export async function getOwnRfq(em: Em, userId: string, rfqId: string): Promise<RfqWithQuotes> {
  const r = await loadRfq(em, rfqId);
  if (!r || r.rfq.takerUserId !== userId) throw rfqNotFound();
  return r;
}

export async function getMakerRfq(em: Em, makerWallet: string, rfqId: string): Promise<RfqWithQuotes> {
  if (!UUID.test(rfqId)) throw new NotFound('RFQ_NOT_FOUND', 'no RFQ with this id');
  const row = await repo(em).get(rfqId);
  if (!row) throw new NotFound('RFQ_NOT_FOUND', 'no RFQ with this id');
  return withQuotes([row], await repo(em).makerQuotes(rfqId, makerWallet.toLowerCase()))[0]!;
}

export interface RfqListQuery {
  status?: RfqStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

interface RfqCursor {
  k: 'rfq';
  c: number;
  i: string;
  s: string | null;
}

const tag = (key: Buffer, payload: string) => createHmac('sha256', key).update(`rfq:${payload}`).digest().subarray(0, 16);

function encode(key: Buffer, c: RfqCursor): string {
  const payload = Buffer.from(JSON.stringify(c)).toString('base64url');
  return `${payload}.${tag(key, payload).toString('base64url')}`;
}

function decode(key: Buffer, raw: string, status: string | null): RfqCursor {
  const invalid = (why: string) =>
    new ValidationFailed(`The cursor is not valid: ${why}. Use next_cursor from a previous page, unchanged.`, null, 'INVALID_CURSOR');
  let o: Partial<RfqCursor> | null;
  try {
    const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(raw);
    if (!m) throw new Error('malformed');
    const given = Buffer.from(m[2]!, 'base64url');
    if (given.length !== 16 || !timingSafeEqual(given, tag(key, m[1]!))) throw new Error('bad tag');
    o = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as Partial<RfqCursor> | null;
  } catch {
    throw invalid('it was not produced by this service');
  }
  if (!o || o.k !== 'rfq' || !Number.isSafeInteger(o.c) || typeof o.i !== 'string' || !UUID.test(o.i))
    throw invalid('it was not produced by this service');
  if ((o.s ?? null) !== status) throw invalid('it belongs to a listing with another status filter (keep status the same while paging)');
  return o as RfqCursor;
}

/** Newest first (created_at_ms desc, id desc), one keyset page; the cursor is HMAC-signed. */
export async function listOwnRfqs(em: Em, userId: string, q: RfqListQuery): Promise<{ rfqs: RfqWithQuotes[]; nextCursor: string | null }> {
  const key = await cursorKey(em);
  const status = q.status ?? null;
  const after = q.cursor ? decode(key, q.cursor, status) : null;
  const rows = await repo(em).page(userId, status, after && { createdAtMs: after.c, id: after.i }, q.limit + 1);
  const page = rows.slice(0, q.limit);
  const rfqs = page.length ? withQuotes(page, await repo(em).quotes(page.map((r) => r.id))) : [];
  const last = rfqs.at(-1);
  const nextCursor = rows.length > q.limit && last ? encode(key, { k: 'rfq', c: last.rfq.createdAtMs, i: last.rfq.id, s: status }) : null;
  return { rfqs, nextCursor };
}

/** Open RFQs due at `nowMs - graceMs` (the sweeper closes each with closeRfq). */
export function dueRfqIds(em: Em, nowMs: number, graceMs: number, limit: number): Promise<string[]> {
  return repo(em).due(nowMs - graceMs, limit);
}
