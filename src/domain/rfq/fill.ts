// What closing an RFQ writes (docs/trading.md, "Fill and rounding rules"), in the caller's transaction with the RFQ row locked:
// a fill (position, legs, one fill row per maker, quote outcomes, maker liabilities reserved, the IOC
// remainder released, trading counters, the RFQ filled) or an expiry/cancel (quotes not filled, the stake
// released). Both return the events to publish after commit: rfq_closed and one quote_result per quote.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { fillsRepository, type NewPosition, type QuoteOutcomeRow, type RfqClose } from '../../db/repositories/fills.repository.js';
import { db } from '../../db/schema.js';
import { lockUserBalances, planPostings, postAll, type LockedAccounts, type Posting } from '../ledger/ledger.js';
import type { PostingRows } from '../../db/repositories/ledger.repository.js';
import { allocate, type Allocation, type QuoteCandidate, type QuoteOutcome } from './allocate.js';
import type { RfqDeps } from './deps.js';
import { countMakerFills } from './mmp.js';
import { routeOf, type RfqEvent } from './events.js';
import { makerOwner, takerOwner } from '../positions/trading-counters.js';
import {
  compareQuoteRecords,
  quoteResultFrame,
  rfqClosedFrame,
  rfqFrame,
  type CloseReason,
  type QuoteReason,
  type QuoteRecord,
  type QuoteResultFrame,
  type RfqRecord,
  type RfqWithQuotes,
} from './records.js';

export interface Closed {
  rfq: RfqWithQuotes;
  events: RfqEvent[];
  allocation: Allocation | null;
}

const candidate = (q: QuoteRecord): QuoteCandidate => ({
  quoteId: q.id,
  makerAddress: q.makerAddress,
  oddsBps: q.oddsBps,
  maxFillMicros: q.maxFillMicros,
  validUntilMs: q.validUntilMs,
  receivedAtMs: q.receivedAtMs,
});

function resultFrame(r: RfqRecord, q: QuoteRecord, o: QuoteOutcome, positionId: string | null, atMs: number): QuoteResultFrame {
  return quoteResultFrame(
    { rfqId: r.id, quoteId: q.id, clientQuoteId: q.clientQuoteId, oddsBps: q.oddsBps },
    o.status === 'filled'
      ? { status: 'filled', positionId, fillMicros: o.fill.fillMicros, liabilityMicros: o.fill.liabilityMicros, filledAtMs: atMs }
      : { status: o.status, reason: o.reason },
  );
}

/**
 * The close's writes besides the ledger (one statement), and what they leave: the RFQ and every quote as
 * a fresh read would return them (built from what was written, not read back), with the events to publish.
 * `all` is every quote of the RFQ (locked with it), `outcomes` those whose status changes.
 */
async function finish(
  tx: Em,
  r: RfqRecord,
  all: readonly QuoteRecord[],
  outcomes: readonly QuoteOutcome[],
  close: RfqClose,
  position: NewPosition | null,
  ledger: PostingRows | null = null,
) {
  const rows: QuoteOutcomeRow[] = outcomes.map((o) => ({
    id: o.quoteId,
    status: o.status,
    reason: o.status === 'filled' ? null : o.reason,
    filledStake: o.status === 'filled' ? o.fill.fillMicros : 0n,
  }));
  await fillsRepository(db(tx)).closeWrites(r.id, close, rows, position, ledger);
  const byId = new Map(rows.map((o) => [o.id, o]));
  const quotes = all
    .map((q): QuoteRecord => {
      const o = byId.get(q.id);
      return o ? { ...q, status: o.status, reason: o.reason as QuoteReason | null, filledStakeMicros: o.filledStake } : q;
    })
    .sort(compareQuoteRecords);
  const rfq: RfqRecord = {
    ...r,
    status: close.status,
    closedAtMs: close.closedAtMs,
    closeReason: close.closeReason as CloseReason | null,
    filledStakeMicros: close.filledStake,
    payoutMicros: close.payout,
    oddsBps: close.oddsBps,
    positionId: close.positionId,
    quotesReceived: all.length,
  };
  const quoteById = new Map(all.map((q) => [q.id, q]));
  const events: RfqEvent[] = [{ topic: 'rfq.closed', frame: rfqClosedFrame(rfq), route: routeOf(rfqFrame(rfq)) }];
  for (const o of outcomes) {
    const q = quoteById.get(o.quoteId)!;
    events.push({ topic: 'mm.event', wallet: q.makerAddress, frame: resultFrame(rfq, q, o, close.positionId, close.closedAtMs) });
  }
  return { rfq: { rfq, quotes }, events };
}

const releasePosting = (r: RfqRecord, amount: bigint): Posting[] =>
  amount <= 0n
    ? []
    : [
        {
          kind: 'rfq_release',
          reference: r.id,
          idempotencyKey: `rfq:${r.id}`,
          entries: [
            { account: { userId: r.takerUserId, kind: 'user_reserved' }, amount: -amount },
            { account: { userId: r.takerUserId, kind: 'user_available' }, amount },
          ],
        },
      ];

const unfilled = (status: 'expired' | 'cancelled', closedAtMs: number, closeReason: CloseReason): RfqClose => ({
  status,
  closedAtMs,
  closeReason,
  filledStake: 0n,
  payout: null,
  oddsBps: null,
  positionId: null,
});

/** Closes without a fill: every live quote not filled (`quoteReason`), the whole stake released. */
export async function expireRfq(
  tx: Em,
  r: RfqRecord,
  live: readonly QuoteRecord[],
  status: 'expired' | 'cancelled',
  reason: CloseReason,
  quoteReason: QuoteReason,
  nowMs: number,
  all: readonly QuoteRecord[] = live,
): Promise<Closed> {
  await postAll(tx, releasePosting(r, r.stakeMicros));
  const outcomes: QuoteOutcome[] = live.map((q) => ({ quoteId: q.id, status: 'not_filled', reason: quoteReason as 'rfq_expired' }));
  return { ...(await finish(tx, r, all, outcomes, unfilled(status, nowMs, reason), null)), allocation: null };
}

/** A chosen maker's collateral moved between the unlocked read and its lock: run the close again, locking every candidate. */
export class CollateralMoved extends Error {
  constructor() {
    super('a chosen maker no longer covers its liability under lock');
    this.name = 'CollateralMoved';
  }
}

/**
 * Fills the RFQ from `candidates` (its live quotes, or the one a taker accepted) by 3.6: best first, greedy.
 * `unlocked` (each candidate maker's available balance by user id, read without a lock with the quotes): the
 * allocation runs on it and then only the taker and the makers it chose are locked (one ordered statement),
 * so closes of RFQs that share makers do not serialise on makers they do not fill; should a chosen maker no
 * longer cover its liability under lock, CollateralMoved (the caller runs again without `unlocked`). Without
 * it, the taker and every candidate maker are locked first and the allocation runs on the locked balances.
 * `others` are live quotes left out (not filled, outbid).
 */
export async function fillRfq(
  tx: Em,
  deps: RfqDeps,
  r: RfqRecord,
  candidates: readonly QuoteRecord[],
  others: readonly QuoteRecord[],
  nowMs: number,
  all: readonly QuoteRecord[] = [...candidates, ...others],
  unlocked?: ReadonlyMap<string, bigint>,
): Promise<Closed> {
  const makerUsers = [...new Set(candidates.map((q) => q.makerUserId).filter((u): u is string => u !== null))];
  const byId = new Map(candidates.map((q) => [q.id, q]));
  // Quote signatures were checked when the quotes arrived (src/domain/rfq/quotes.ts): nothing is recovered under these locks.
  const kinds = ['user_available', 'user_reserved'] as const;
  let locked: LockedAccounts | null = unlocked ? null : await lockUserBalances(tx, [r.takerUserId, ...makerUsers], kinds);
  /** What each maker still has available for collateral while the allocation runs (by user id). */
  const collateral = new Map(makerUsers.map((u) => [u, unlocked ? (unlocked.get(u) ?? 0n) : (locked!.get(`${u}:user_available`)?.balance ?? 0n)]));
  const allocation = await allocate(
    {
      stakeMicros: r.stakeMicros,
      minOddsBps: r.minOddsBps,
      orderType: r.orderType,
      nowMs,
      maxPayoutMicros: deps.settings.maxPayoutMicros,
      minFillMicros: deps.settings.minFillMicros,
      quotes: candidates.map(candidate),
    },
    {
      hasCollateral: (c, liability) => {
        const user = byId.get(c.quoteId)!.makerUserId;
        if (!user) return false;
        const available = collateral.get(user) ?? 0n;
        if (available < liability) return false;
        collateral.set(user, available - liability);
        return true;
      },
    },
  );
  if (!locked) {
    const need = new Map<string, bigint>();
    for (const f of allocation.status === 'filled' ? allocation.fills : []) {
      const u = byId.get(f.quote.quoteId)!.makerUserId!;
      need.set(u, (need.get(u) ?? 0n) + f.liabilityMicros);
    }
    locked = await lockUserBalances(tx, [r.takerUserId, ...need.keys()], kinds);
    for (const [u, l] of need) if ((locked.get(`${u}:user_available`)?.balance ?? 0n) < l) throw new CollateralMoved();
  }
  const outbid: QuoteOutcome[] = others.map((q) => ({ quoteId: q.id, status: 'not_filled', reason: 'outbid' }));
  const outcomes = [...allocation.quotes, ...outbid];

  if (allocation.status === 'expired') {
    const ledger = planPostings(releasePosting(r, r.stakeMicros), locked).rows; // written by the close's statement
    return { ...(await finish(tx, r, all, outcomes, unfilled('expired', nowMs, allocation.reason), null, ledger)), allocation };
  }

  const positionId = randomUUID();
  // Each maker's liability (>= 1 micro: payouts round up) moves from available to reserved.
  const makerEntries = allocation.fills.flatMap((f) => {
    const userId = byId.get(f.quote.quoteId)!.makerUserId!;
    return [
      { account: { userId, kind: 'user_available' as const }, amount: -f.liabilityMicros },
      { account: { userId, kind: 'user_reserved' as const }, amount: f.liabilityMicros },
    ];
  });
  const postings: Posting[] = makerEntries.length
    ? [{ kind: 'rfq_fill', reference: positionId, idempotencyKey: `rfq:${r.id}`, entries: makerEntries }]
    : [];
  // Checked here (InsufficientBalance), written by the close's one statement with the position.
  const ledger = planPostings([...postings, ...releasePosting(r, allocation.releasedMicros)], locked).rows;
  const position: NewPosition = {
    id: positionId,
    rfqId: r.id,
    takerUserId: r.takerUserId,
    takerAddress: r.takerAddress,
    stake: allocation.filledStakeMicros,
    payout: allocation.payoutMicros,
    oddsBps: allocation.oddsBps,
    createdAtMs: nowMs,
    legs: r.legs.map((l) => ({ marketId: l.market_id, direction: l.direction })),
    fills: allocation.fills.map((f) => ({
      id: randomUUID(),
      quoteId: f.quote.quoteId,
      makerAddress: f.quote.makerAddress,
      makerUserId: byId.get(f.quote.quoteId)!.makerUserId!,
      stake: f.fillMicros,
      oddsBps: f.quote.oddsBps,
      payout: f.payoutMicros,
      liability: f.liabilityMicros,
    })),
    stats: [
      { owner: takerOwner(r.takerUserId), openCount: 1, openStake: allocation.filledStakeMicros, potentialPayout: allocation.payoutMicros },
      ...allocation.fills.map((f) => ({
        owner: makerOwner(f.quote.makerAddress),
        openCount: 1,
        openStake: f.liabilityMicros,
        potentialPayout: f.payoutMicros,
      })),
    ],
  };
  const close: RfqClose = {
    status: 'filled',
    closedAtMs: nowMs,
    closeReason: null,
    filledStake: allocation.filledStakeMicros,
    payout: allocation.payoutMicros,
    oddsBps: allocation.oddsBps,
    positionId,
  };
  const done = await finish(tx, r, all, outcomes, close, position, ledger);
  // Market-maker protection: each maker's fill counts against its limits; a trip withdraws its live quotes.
  const fills = allocation.fills.map((f) => ({ maker: f.quote.makerAddress, liability: f.liabilityMicros }));
  return { ...done, events: [...done.events, ...(await countMakerFills(tx, fills, nowMs))], allocation };
}
