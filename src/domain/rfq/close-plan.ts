// What closing an RFQ does (docs/trading.md, "Fill and rounding rules"), decided without touching anything: planClose
// takes the RFQ, its quotes and the makers' available balances and returns the ledger postings, the position
// (on a fill), each quote's outcome, the RFQ's close and the events to publish after commit, with the RFQ as
// a read would return it afterwards. fill.ts only executes a plan (its one write statement, plus the rare
// protection trip); src/trading/rfq-lifecycle.ts publishes the events. Pure: the ids it needs come from
// `newId`, the time from `nowMs`.
import type { NewPosition, RfqClose } from '../../db/repositories/fills.repository.js';
import type { Posting } from '../ledger/ledger.js';
import { allocateNow, type Allocation, type QuoteCandidate, type QuoteOutcome } from './allocate.js';
import { makerOwner, takerOwner } from '../trading-counters.js';
import { routeOf, type QuoteResultDelivery, type RfqEvent } from './events.js';
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

/** How the RFQ closes: filled from candidate quotes (best mode: its live quotes; manual: the accepted one), or not. */
export type CloseHow =
  | { kind: 'fill'; candidates: readonly QuoteRecord[]; others: readonly QuoteRecord[] }
  | { kind: 'expire'; reason: 'deadline' | 'betting_closed'; live: readonly QuoteRecord[] }
  | { kind: 'cancel'; live: readonly QuoteRecord[] };

export interface CloseInput {
  rfq: RfqRecord;
  /** Every quote of the RFQ (what a read returns afterwards). */
  all: readonly QuoteRecord[];
  how: CloseHow;
  /** Each candidate maker's available balance, by user id (a missing maker has none). */
  balances: ReadonlyMap<string, bigint>;
  nowMs: number;
  limits: { maxPayoutMicros: bigint; minFillMicros: bigint };
  /** New ids (the position, its fill rows). */
  newId: () => string;
}

export interface ClosePlan {
  allocation: Allocation | null;
  postings: Posting[];
  position: NewPosition | null;
  /** The quotes whose status changes. */
  outcomes: QuoteOutcome[];
  close: RfqClose;
  /** Each chosen maker's liability by user id: what its available balance must still cover under lock. */
  liabilities: Map<string, bigint>;
  /** Each maker fill, for market-maker protection. */
  makerFills: Array<{ maker: string; liability: bigint }>;
  /** The RFQ and its quotes as a read returns them once the plan is written. */
  after: RfqWithQuotes;
  events: RfqEvent[];
}

const UNFILLED_QUOTE_REASON: Record<'deadline' | 'betting_closed' | 'cancel', QuoteReason> = {
  deadline: 'rfq_expired',
  betting_closed: 'betting_closed',
  cancel: 'rfq_cancelled',
};

export function planClose(input: CloseInput): ClosePlan {
  const { rfq: r, how, nowMs } = input;
  if (how.kind !== 'fill') {
    const quoteReason = UNFILLED_QUOTE_REASON[how.kind === 'cancel' ? 'cancel' : how.reason];
    const outcomes = how.live.map((q): QuoteOutcome => ({ quoteId: q.id, status: 'not_filled', reason: quoteReason as 'rfq_expired' }));
    const close = unfilled(how.kind === 'cancel' ? 'cancelled' : 'expired', nowMs, how.kind === 'cancel' ? 'cancelled' : how.reason);
    return finishPlan(input, { allocation: null, postings: releasePosting(r, r.stakeMicros), position: null, outcomes, close });
  }
  const allocation = allocateOn(input, how.candidates);
  const outbid = how.others.map((q): QuoteOutcome => ({ quoteId: q.id, status: 'not_filled', reason: 'outbid' }));
  const outcomes = [...allocation.quotes, ...outbid];
  if (allocation.status === 'expired') {
    const close = unfilled('expired', nowMs, allocation.reason);
    return finishPlan(input, { allocation, postings: releasePosting(r, r.stakeMicros), position: null, outcomes, close });
  }
  const makerOf = userOf(how.candidates);
  const position = positionOf(r, allocation, makerOf, nowMs, input.newId);
  // Each maker's liability (>= 1 micro: payouts round up) moves from available to reserved.
  const makerEntries = allocation.fills.flatMap((f) => {
    const userId = makerOf(f.quote);
    return [
      { account: { userId, kind: 'user_available' as const }, amount: -f.liabilityMicros },
      { account: { userId, kind: 'user_reserved' as const }, amount: f.liabilityMicros },
    ];
  });
  const postings: Posting[] = [
    { kind: 'rfq_fill', reference: position.id, idempotencyKey: `rfq:${r.id}`, entries: makerEntries },
    ...releasePosting(r, allocation.releasedMicros),
  ];
  const close: RfqClose = {
    status: 'filled',
    closedAtMs: nowMs,
    closeReason: null,
    filledStake: allocation.filledStakeMicros,
    payout: allocation.payoutMicros,
    oddsBps: allocation.oddsBps,
    positionId: position.id,
  };
  return finishPlan(input, { allocation, postings, position, outcomes, close });
}

/** The allocation (3.6: best first, greedy) on the makers' balances, each maker's collateral spent as it fills. */
function allocateOn(input: CloseInput, candidates: readonly QuoteRecord[]): Allocation {
  const { rfq: r } = input;
  const byId = new Map(candidates.map((q) => [q.id, q]));
  const collateral = new Map(input.balances);
  return allocateNow(
    {
      stakeMicros: r.stakeMicros,
      minOddsBps: r.minOddsBps,
      orderType: r.orderType,
      nowMs: input.nowMs,
      maxPayoutMicros: input.limits.maxPayoutMicros,
      minFillMicros: input.limits.minFillMicros,
      quotes: candidates.map(candidateOf),
    },
    {
      hasCollateral: (c, liability) => {
        const user = byId.get(c.quoteId)!.makerUserId;
        const available = user ? (collateral.get(user) ?? 0n) : 0n;
        if (!user || available < liability) return false;
        collateral.set(user, available - liability);
        return true;
      },
    },
  );
}

const candidateOf = (q: QuoteRecord): QuoteCandidate => ({
  quoteId: q.id,
  makerAddress: q.makerAddress,
  oddsBps: q.oddsBps,
  maxFillMicros: q.maxFillMicros,
  validUntilMs: q.validUntilMs,
  receivedAtMs: q.receivedAtMs,
});

/** The maker's user id of a candidate that filled (a quote without one never passes the collateral check). */
function userOf(candidates: readonly QuoteRecord[]) {
  const byId = new Map(candidates.map((q) => [q.id, q]));
  return (c: QuoteCandidate): string => byId.get(c.quoteId)!.makerUserId!;
}

function positionOf(
  r: RfqRecord,
  a: Extract<Allocation, { status: 'filled' }>,
  makerOf: (c: QuoteCandidate) => string,
  nowMs: number,
  newId: () => string,
): NewPosition {
  return {
    id: newId(),
    rfqId: r.id,
    takerUserId: r.takerUserId,
    takerAddress: r.takerAddress,
    stake: a.filledStakeMicros,
    payout: a.payoutMicros,
    oddsBps: a.oddsBps,
    createdAtMs: nowMs,
    legs: r.legs.map((l) => ({ marketId: l.market_id, direction: l.direction })),
    fills: a.fills.map((f) => ({
      id: newId(),
      quoteId: f.quote.quoteId,
      makerAddress: f.quote.makerAddress,
      makerUserId: makerOf(f.quote),
      stake: f.fillMicros,
      oddsBps: f.quote.oddsBps,
      payout: f.payoutMicros,
      liability: f.liabilityMicros,
    })),
    stats: [
      { owner: takerOwner(r.takerUserId), openCount: 1, openStake: a.filledStakeMicros, potentialPayout: a.payoutMicros },
      ...a.fills.map((f) => ({
        owner: makerOwner(f.quote.makerAddress),
        openCount: 1,
        openStake: f.liabilityMicros,
        potentialPayout: f.payoutMicros,
      })),
    ],
  };
}

/** The stake (or the IOC remainder) back from the taker's reserved to available; nothing when 0. */
function releasePosting(r: RfqRecord, amount: bigint): Posting[] {
  if (amount <= 0n) return [];
  return [
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
}

const unfilled = (status: 'expired' | 'cancelled', closedAtMs: number, closeReason: CloseReason): RfqClose => ({
  status,
  closedAtMs,
  closeReason,
  filledStake: 0n,
  payout: null,
  oddsBps: null,
  positionId: null,
});

type PlanCore = Pick<ClosePlan, 'allocation' | 'postings' | 'position' | 'outcomes' | 'close'>;

/** The RFQ and its quotes after the close (built from the plan, not read back), and the events to publish. */
function finishPlan(input: CloseInput, core: PlanCore): ClosePlan {
  const { rfq: r, all } = input;
  const { outcomes, close, position } = core;
  const byId = new Map(outcomes.map((o) => [o.quoteId, o]));
  const quotes = all
    .map((q): QuoteRecord => {
      const o = byId.get(q.id);
      if (!o) return q;
      return {
        ...q,
        status: o.status,
        reason: o.status === 'filled' ? null : o.reason,
        filledStakeMicros: o.status === 'filled' ? o.fill.fillMicros : 0n,
      };
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
  // The makers' quote_result frames travel inside rfq.closed (src/ws/rfq-stream.ts), every one of them: the
  // publisher fits them to the bus's message limit (fitToBus, src/trading/rfq-events.ts).
  const results = outcomes.map((o): QuoteResultDelivery => {
    const q = quoteById.get(o.quoteId)!;
    return { wallet: q.makerAddress, frame: resultFrame(rfq, q, o) };
  });
  const liabilities = new Map<string, bigint>();
  for (const f of position?.fills ?? []) liabilities.set(f.makerUserId, (liabilities.get(f.makerUserId) ?? 0n) + f.liability);
  return {
    ...core,
    liabilities,
    makerFills: (position?.fills ?? []).map((f) => ({ maker: f.makerAddress, liability: f.liability })),
    after: { rfq, quotes },
    events: [{ topic: 'rfq.closed', frame: rfqClosedFrame(rfq), route: routeOf(rfqFrame(rfq)), results }],
  };
}

function resultFrame(r: RfqRecord, q: QuoteRecord, o: QuoteOutcome): QuoteResultFrame {
  return quoteResultFrame(
    { rfqId: r.id, quoteId: q.id, clientQuoteId: q.clientQuoteId, oddsBps: q.oddsBps },
    o.status === 'filled'
      ? {
          status: 'filled',
          positionId: r.positionId,
          fillMicros: o.fill.fillMicros,
          liabilityMicros: o.fill.liabilityMicros,
          filledAtMs: r.closedAtMs!,
        }
      : { status: o.status, reason: o.reason },
  );
}
