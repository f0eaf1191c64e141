// Reading RFQs: the taker's own (one, or a keyset page newest first with a signed cursor), a maker's
// reconciliation view (any RFQ, its own quotes only), and the sweeper's due list.
import type { Em } from '../../db/orm.js';
import { isUuid, NotFound } from '../errors.js';
import { KeysetCursors } from '../keyset-cursor.js';
import type { QuoteRecord, RfqStatus, RfqWithQuotes } from './records.js';
import { quoteFromRow, withQuotes } from './rows.js';
import { repos } from '../../db/repos.js';

const repo = (em: Em) => repos(em).rfq;

export const rfqNotFound = () => new NotFound('RFQ_NOT_FOUND', 'no RFQ with this id belongs to you');

/** One RFQ with every quote (best first), or null. */
export async function loadRfq(em: Em, rfqId: string): Promise<RfqWithQuotes | null> {
  if (!isUuid(rfqId)) return null;
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
  if (!isUuid(rfqId)) throw new NotFound('RFQ_NOT_FOUND', 'no RFQ with this id');
  const row = await repo(em).get(rfqId);
  if (!row) throw new NotFound('RFQ_NOT_FOUND', 'no RFQ with this id');
  return withQuotes([row], await repo(em).makerQuotes(rfqId, makerWallet.toLowerCase()))[0]!;
}

export interface RfqListQuery {
  status?: RfqStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Newest first (created_at_ms desc, id desc), one keyset page; the cursor is HMAC-signed. */
export async function listOwnRfqs(em: Em, userId: string, q: RfqListQuery): Promise<{ rfqs: RfqWithQuotes[]; nextCursor: string | null }> {
  const cursors = await KeysetCursors.of(em, 'rfqs');
  const status = q.status ?? null;
  const after = cursors.decode(q.cursor, status);
  const rows = await repo(em).page(userId, status, after && { createdAtMs: after.atMs, id: after.id }, q.limit + 1);
  const page = rows.slice(0, q.limit);
  const rfqs = page.length ? withQuotes(page, await repo(em).quotes(page.map((r) => r.id))) : [];
  const last = rfqs.at(-1);
  const nextCursor = rows.length > q.limit && last ? cursors.encode({ atMs: last.rfq.createdAtMs, id: last.rfq.id }, status) : null;
  return { rfqs, nextCursor };
}

/** Open RFQs due at `nowMs - graceMs` (the sweeper closes each with closeRfq). */
export function dueRfqIds(em: Em, nowMs: number, graceMs: number, limit: number): Promise<string[]> {
  return repo(em).due(nowMs - graceMs, limit);
}

/** The maker's live quotes on every RFQ, oldest first (GET /v1/mm/quotes: reconciling after a reconnect). */
export async function makerLiveQuotes(em: Em, makerWallet: string, limit: number): Promise<QuoteRecord[]> {
  return (await repo(em).makerLiveQuotes(makerWallet.toLowerCase(), limit)).map(quoteFromRow);
}
