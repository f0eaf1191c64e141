// Closing RFQs (docs/trading.md, "The RFQ lifecycle"): at the quote deadline (best: fill), at expiry (manual: expired deadline),
// when a leg's betting closes (expired betting_closed), on the taker's accept (manual fill) or cancel.
// Each runs with the RFQ row locked FOR UPDATE and checks `status = 'open'` first, so the owner's timer,
// the sweeper on another process and the taker racing each other change it once.
import type { Em } from '../../db/orm.js';
import type { Tx } from '../../db/unit-of-work.js';
import { isTransientConflict } from '../database-errors.js';
import { Conflict, isUuid, NotFound, Unprocessable } from '../errors.js';
import type { RejectedReason } from './allocate.js';
import type { RfqEvent } from './events.js';
import type { RfqWrite } from './create.js';
import { nowOf, type RfqDeps } from './deps.js';
import { CollateralMoved, executeClose, type CloseRun, type LockedRfq } from './fill.js';
import type { CloseHow } from './close-plan.js';
import type { LockedAccounts } from '../ledger/ledger.js';
import { loadRfq, rfqNotFound } from './queries.js';
import { quoteFromRow, rfqFromRow } from './rows.js';
import { compareQuoteRecords, quoteResultFrame, type QuoteRecord, type RfqRecord } from './records.js';
import { repos } from '../../db/repos.js';

/**
 * The locked RFQ with every quote (locked after it, best first), the live ones among them, and the taker's and
 * quoting makers' ledger accounts as read without a lock: ONE statement (RfqRepository.lockForClose).
 * Decided in SQL (rfq_lock_for_close, PL/pgSQL in src/db/migrations/Migration20261126060000_rfq_fill_path.ts): the
 * quotes' order, best first (odds desc, received, id: the allocation's order, allocate.ts), which makers are
 * removed, and that a closed RFQ comes without quotes or accounts.
 */
async function lockOpen(tx: Em, rfqId: string): Promise<LockedRfq | null> {
  const found = isUuid(rfqId) ? await repos(tx).rfq.lockForClose(rfqId) : undefined;
  if (!found) return null;
  const accounts: LockedAccounts = new Map();
  for (const a of found.takerAccounts) accounts.set(`${found.rfq.taker_user_id}:${a.kind}`, { id: a.id, balance: a.balance });
  for (const q of found.quotes) {
    if (!q.maker_user_id) continue;
    if (q.maker_available_id)
      accounts.set(`${q.maker_user_id}:user_available`, { id: q.maker_available_id, balance: q.maker_available ?? 0n });
    // The reserved balance is only ever credited by a close: its value does not matter, its id does.
    if (q.maker_reserved_id) accounts.set(`${q.maker_user_id}:user_reserved`, { id: q.maker_reserved_id, balance: 0n });
  }
  // A maker removed since quoting cannot fill (its removal cancelled its live quotes; this is the backstop).
  const unregistered = new Set(found.quotes.filter((q) => q.maker_removed).map((q) => q.id));
  const all = found.quotes.map(quoteFromRow).sort(compareQuoteRecords);
  return { rfq: rfqFromRow(found.rfq, all.length), live: all.filter((q) => q.status === 'live' && !unregistered.has(q.id)), all, accounts };
}

const bettingClosed = (r: RfqRecord, nowMs: number) => r.legs.some((l) => l.betting_closes_at_ms <= nowMs);

/**
 * Its own transaction. Closes the RFQ if it is due; otherwise changes nothing (`changed: false`).
 */
export async function closeRfq(em: Em, deps: RfqDeps, rfqId: string): Promise<RfqWrite & { changed: boolean }> {
  try {
    return await closeOnce(em, deps, rfqId, 'in_write');
  } catch (err) {
    // Rare: a chosen maker's collateral moved, or the write's account locks met another close's in a deadlock
    // (PostgreSQL rolled this one back): run again, locking the taker and every candidate maker first.
    if (!(err instanceof CollateralMoved) && !isTransientConflict(err)) throw err;
    return closeOnce(em, deps, rfqId, 'first');
  }
}

/** How a due RFQ closes now, or null when it is not due. */
function dueClose(r: RfqRecord, live: QuoteRecord[], now: number): CloseHow | null {
  if (bettingClosed(r, now)) return { kind: 'expire', reason: 'betting_closed', live };
  if (r.fillMode === 'best' && now >= r.quoteDeadlineMs) return { kind: 'fill', candidates: live, others: [] };
  if (now >= r.expiresAtMs) return { kind: 'expire', reason: 'deadline', live };
  return null;
}

async function closeOnce(em: Em, deps: RfqDeps, rfqId: string, lock: CloseRun['lock']): Promise<RfqWrite & { changed: boolean }> {
  return em.transactional(async (tx) => {
    const locked = await lockOpen(tx, rfqId);
    if (!locked) throw new NotFound('RFQ_NOT_FOUND', `no RFQ ${rfqId}`);
    const { rfq: r, live, all } = locked;
    const now = nowOf(deps);
    const how = r.status === 'open' ? dueClose(r, live, now) : null;
    if (how) return { ...(await executeClose(tx, deps, { locked, how, nowMs: now, lock })), changed: true };
    return { rfq: r.status === 'open' ? { rfq: r, quotes: all } : (await loadRfq(tx, rfqId))!, events: [], changed: false };
  });
}

/** Inside the caller's transaction (the idempotency key's): fills the RFQ with the one quote the taker chose. */
export async function acceptQuote(tx: Tx, deps: RfqDeps, userId: string, rfqId: string, quoteId: string): Promise<RfqWrite> {
  const locked = await lockOpen(tx, rfqId);
  if (!locked || locked.rfq.takerUserId !== userId) throw rfqNotFound();
  const { rfq: r, live, all } = locked;
  const now = nowOf(deps);
  if (r.status !== 'open' || now >= r.expiresAtMs) {
    throw new Conflict(
      'RFQ_NOT_OPEN',
      `the RFQ is ${r.status === 'open' ? 'past its deadline' : r.status}; quotes can be accepted only while it is open`,
      {
        status: r.status,
      },
    );
  }
  if (bettingClosed(r, now)) throw new Conflict('BETTING_CLOSED', 'betting has closed on a leg of this RFQ; nothing can be filled');
  const chosen = live.find((q) => q.id === quoteId);
  if (!chosen) {
    const any = all.find((q) => q.id === quoteId);
    if (!any) throw new NotFound('QUOTE_NOT_FOUND', `no quote ${quoteId} on this RFQ`);
    throw new Conflict('QUOTE_NOT_LIVE', `quote ${quoteId} is ${any.status}; accept a live quote (GET /v1/rfq/{rfq_id} lists them)`, {
      status: any.status,
    });
  }
  if (chosen.validUntilMs <= now) throw new Conflict('QUOTE_EXPIRED', `quote ${quoteId} was valid until ${chosen.validUntilMs}`);
  if (chosen.oddsBps < r.minOddsBps) {
    throw new Unprocessable(
      'ODDS_BELOW_MINIMUM',
      `quote ${quoteId} offers ${chosen.oddsBps} bps, below the order's signed min_odds_bps ${r.minOddsBps}`,
    );
  }
  const others = live.filter((q) => q.id !== quoteId);
  const closed = await executeClose(tx, deps, { locked, how: { kind: 'fill', candidates: [chosen], others }, nowMs: now, lock: 'first' });
  if (closed.allocation?.status !== 'filled') {
    // Nothing is kept: the key's transaction rolls back (the rejection is stored in one of its own), the RFQ stays open.
    const why = closed.allocation?.quotes[0];
    const reason = why && why.status !== 'filled' ? why.reason : 'insufficient_liquidity';
    if (why?.status === 'rejected') throw new QuoteUnusable(why.quoteId, why.reason, reason);
    throw new Unprocessable(
      'INSUFFICIENT_LIQUIDITY',
      `quote ${quoteId} cannot fill this order (${reason === 'rfq_expired' ? 'its max_fill_micros is below the FOK stake' : reason}); choose another quote`,
      { reason },
    );
  }
  return closed;
}

/**
 * The accepted quote cannot fill at all (its maker's collateral is gone, or it would pay above the maximum):
 * 422 INSUFFICIENT_LIQUIDITY, and the caller marks the quote dead (rejectQuote) once the accept rolled back.
 */
export class QuoteUnusable extends Unprocessable {
  constructor(
    readonly quoteId: string,
    readonly reason: RejectedReason,
    shown: string,
  ) {
    super('INSUFFICIENT_LIQUIDITY', `quote ${quoteId} cannot fill this order (${shown}); choose another quote`, { reason: shown });
  }
}

/**
 * Its own transaction, after a failed accept rolled back: the quote that could not fill becomes `rejected`
 * (`reason`) so it does not stay live on top of the book for the next taker. Returns the events to publish
 * (its maker's quote_result, and rfq.quote for the RFQ's long-pollers); none when it is no longer live.
 */
export async function rejectQuote(em: Em, rfqId: string, quoteId: string, reason: RejectedReason): Promise<RfqEvent[]> {
  return em.transactional(async (tx) => {
    const r = repos(tx);
    const row = await r.rfq.get(rfqId, 'share'); // as a quote insert: quotes change only while the RFQ is not closing
    if (row?.status !== 'open') return [];
    const q = await r.rfqQuotes.rejectLive(rfqId, quoteId, reason);
    if (!q) return [];
    return [
      { topic: 'rfq.quote', rfqId },
      {
        topic: 'mm.event',
        wallet: q.maker_address,
        frame: quoteResultFrame(
          { rfqId, quoteId: q.id, clientQuoteId: q.client_quote_id, oddsBps: q.odds_bps },
          { status: 'rejected', reason },
        ),
      },
    ];
  });
}

/** Its own transaction: cancels an open RFQ (its stake released); a repeat returns the cancelled RFQ. */
export async function cancelRfq(em: Em, deps: RfqDeps, userId: string, rfqId: string): Promise<RfqWrite> {
  return em.transactional(async (tx) => {
    const locked = await lockOpen(tx, rfqId);
    if (!locked || locked.rfq.takerUserId !== userId) throw rfqNotFound();
    const { rfq: r, live } = locked;
    if (r.status === 'cancelled') return { rfq: (await loadRfq(tx, rfqId))!, events: [] };
    if (r.status !== 'open') {
      throw new Conflict('RFQ_NOT_OPEN', `the RFQ is already ${r.status}; only an open RFQ can be cancelled`, { status: r.status });
    }
    // Only the taker's accounts move (the stake released): the safe way costs nothing more here.
    return executeClose(tx, deps, { locked, how: { kind: 'cancel', live }, nowMs: nowOf(deps), lock: 'first' });
  });
}
