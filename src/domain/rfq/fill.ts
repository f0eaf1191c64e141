// What closing an RFQ writes (rfq-design 3.6, 3.7), in the caller's transaction with the RFQ row locked:
// a fill (position, legs, one fill row per maker, quote outcomes, maker liabilities reserved, the IOC
// remainder released, trading counters, the RFQ filled) or an expiry/cancel (quotes not filled, the stake
// released). Both return the events to publish after commit: rfq_closed and one quote_result per quote.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { fillsRepository, type NewPosition, type QuoteOutcomeRow, type RfqClose } from '../../db/repositories/fills.repository.js';
import { db } from '../../db/schema.js';
import { lockUserBalances, postAll, type LockedAccounts, type Posting } from '../ledger/ledger.js';
import { allocate, type Allocation, type QuoteCandidate, type QuoteOutcome } from './allocate.js';
import type { RfqDeps } from './deps.js';
import { countMakerFills } from './mmp.js';
import { routeOf, type RfqEvent } from './events.js';
import {
  compareQuoteRecords,
  rfqClosedFrame,
  rfqFrame,
  type CloseReason,
  type QuoteReason,
  type QuoteRecord,
  type QuoteResultFrame,
  type RfqRecord,
  type RfqWithQuotes,
} from './records.js';
import { rfqDomain, verifyQuoteSignature } from './typed-data.js';

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
  const filled = o.status === 'filled' ? o.fill : null;
  return {
    type: 'quote_result',
    rfq_id: r.id,
    quote_id: q.id,
    client_quote_id: q.clientQuoteId,
    status: o.status,
    reason: o.status === 'filled' ? null : o.reason,
    position_id: filled ? positionId : null,
    fill_stake_micros: (filled?.fillMicros ?? 0n).toString(),
    odds_bps: q.oddsBps,
    liability_micros: (filled?.liabilityMicros ?? 0n).toString(),
    filled_at_ms: filled ? atMs : null,
  };
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
) {
  const rows: QuoteOutcomeRow[] = outcomes.map((o) => ({
    id: o.quoteId,
    status: o.status,
    reason: o.status === 'filled' ? null : o.reason,
    filledStake: o.status === 'filled' ? o.fill.fillMicros : 0n,
  }));
  await fillsRepository(db(tx)).closeWrites(r.id, close, rows, position);
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

/**
 * Fills the RFQ from `candidates` (its live quotes, or the one a taker accepted) by 3.6: best first, greedy,
 * a maker's signature checked only when its quote would fill, its collateral checked under the ledger locks
 * (taker and makers locked in one ordered statement). `others` are live quotes left out (not filled, outbid).
 */
export async function fillRfq(
  tx: Em,
  deps: RfqDeps,
  r: RfqRecord,
  candidates: readonly QuoteRecord[],
  others: readonly QuoteRecord[],
  nowMs: number,
  all: readonly QuoteRecord[] = [...candidates, ...others],
): Promise<Closed> {
  const makerUsers = [...new Set(candidates.map((q) => q.makerUserId).filter((u): u is string => u !== null))];
  const byId = new Map(candidates.map((q) => [q.id, q]));
  const domain = rfqDomain(deps.settings.eip712Name, deps.settings.signingChainId);
  const verified = new Map<string, Promise<boolean>>();
  const verify = (q: QuoteRecord) => {
    let v = verified.get(q.id);
    if (!v) {
      const quote = {
        rfq_id: r.id,
        maker: q.makerAddress,
        odds_bps: q.oddsBps,
        max_fill_micros: Number(q.maxFillMicros),
        valid_until_ms: q.validUntilMs,
      };
      verified.set(q.id, (v = verifyQuoteSignature(domain, quote, q.signature).then((x) => x.ok)));
    }
    return v;
  };
  // The accounts' lock goes out first (its query is written within this turn's microtasks); the best
  // candidate's signature is recovered on the next turn, while the lock is in flight. Its result counts
  // only if the allocation chooses that quote (3.6: a signature matters only when chosen).
  const lockedP = lockUserBalances(tx, [r.takerUserId, ...makerUsers], ['user_available', 'user_reserved']);
  const best = candidates.find((q) => q.oddsBps >= r.minOddsBps && q.validUntilMs > nowMs);
  if (best) setImmediate(() => void verify(best));
  const locked: LockedAccounts = await lockedP;
  /** What each maker still has available for collateral while the allocation runs (the locked balances stay as read). */
  const collateral = new Map([...locked].map(([k, v]) => [k, v.balance]));
  const allocation = await allocate(
    {
      stakeMicros: r.stakeMicros,
      minOddsBps: r.minOddsBps,
      orderType: r.orderType,
      nowMs,
      maxPayoutMicros: deps.settings.maxPayoutMicros,
      quotes: candidates.map(candidate),
    },
    {
      verifySignature: (c) => verify(byId.get(c.quoteId)!),
      hasCollateral: (c, liability) => {
        const user = byId.get(c.quoteId)!.makerUserId;
        if (!user) return false;
        const key = `${user}:user_available`;
        const available = collateral.get(key) ?? 0n;
        if (available < liability) return false;
        collateral.set(key, available - liability);
        return true;
      },
    },
  );
  const outbid: QuoteOutcome[] = others.map((q) => ({ quoteId: q.id, status: 'not_filled', reason: 'outbid' }));
  const outcomes = [...allocation.quotes, ...outbid];

  if (allocation.status === 'expired') {
    await postAll(tx, releasePosting(r, r.stakeMicros), locked);
    return { ...(await finish(tx, r, all, outcomes, unfilled('expired', nowMs, allocation.reason), null)), allocation };
  }

  const positionId = randomUUID();
  // Each maker's liability moves from available to reserved (a dust fill's liability can be 0: no entry).
  const makerEntries = allocation.fills
    .filter((f) => f.liabilityMicros > 0n)
    .flatMap((f) => {
      const userId = byId.get(f.quote.quoteId)!.makerUserId!;
      return [
        { account: { userId, kind: 'user_available' as const }, amount: -f.liabilityMicros },
        { account: { userId, kind: 'user_reserved' as const }, amount: f.liabilityMicros },
      ];
    });
  const postings: Posting[] = makerEntries.length
    ? [{ kind: 'rfq_fill', reference: positionId, idempotencyKey: `rfq:${r.id}`, entries: makerEntries }]
    : [];
  await postAll(tx, [...postings, ...releasePosting(r, allocation.releasedMicros)], locked);
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
      { owner: `user:${r.takerUserId}`, openCount: 1, openStake: allocation.filledStakeMicros, potentialPayout: allocation.payoutMicros },
      ...allocation.fills.map((f) => ({
        owner: `mm:${f.quote.makerAddress}`,
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
  const done = await finish(tx, r, all, outcomes, close, position);
  // Market-maker protection: each maker's fill counts against its limits; a trip withdraws its live quotes.
  const fills = allocation.fills.map((f) => ({ maker: f.quote.makerAddress, liability: f.liabilityMicros }));
  return { ...done, events: [...done.events, ...(await countMakerFills(tx, fills, nowMs))], allocation };
}
