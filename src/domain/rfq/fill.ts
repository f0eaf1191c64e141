// What closing an RFQ writes (rfq-design 3.6, 3.7), in the caller's transaction with the RFQ row locked:
// a fill (position, legs, one fill row per maker, quote outcomes, maker liabilities reserved, the IOC
// remainder released, trading counters, the RFQ filled) or an expiry/cancel (quotes not filled, the stake
// released). Both return the events to publish after commit: rfq_closed and one quote_result per quote.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { fillsRepository, type QuoteOutcomeRow } from '../../db/repositories/fills.repository.js';
import { db } from '../../db/schema.js';
import { lockUserBalances, post } from '../ledger/ledger.js';
import { allocate, type Allocation, type QuoteCandidate, type QuoteOutcome } from './allocate.js';
import type { RfqDeps } from './deps.js';
import { routeOf, type RfqEvent } from './events.js';
import { loadRfq } from './queries.js';
import {
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

async function finish(
  tx: Em,
  r: RfqRecord,
  quotes: readonly QuoteRecord[],
  outcomes: readonly QuoteOutcome[],
  positionId: string | null,
  atMs: number,
) {
  const byId = new Map(quotes.map((q) => [q.id, q]));
  const rows: QuoteOutcomeRow[] = outcomes.map((o) => ({
    id: o.quoteId,
    status: o.status,
    reason: o.status === 'filled' ? null : o.reason,
    filledStake: o.status === 'filled' ? o.fill.fillMicros : 0n,
  }));
  await fillsRepository(db(tx)).setQuoteOutcomes(rows);
  const after = (await loadRfq(tx, r.id))!;
  const events: RfqEvent[] = [{ topic: 'rfq.closed', frame: rfqClosedFrame(after.rfq), route: routeOf(rfqFrame(after.rfq)) }];
  for (const o of outcomes) {
    const q = byId.get(o.quoteId)!;
    events.push({ topic: 'mm.event', wallet: q.makerAddress, frame: resultFrame(after.rfq, q, o, positionId, atMs) });
  }
  return { rfq: after, events };
}

async function release(tx: Em, r: RfqRecord, amount: bigint): Promise<void> {
  if (amount <= 0n) return;
  await post(tx, {
    kind: 'rfq_release',
    reference: r.id,
    idempotencyKey: `rfq:${r.id}`,
    entries: [
      { account: { userId: r.takerUserId, kind: 'user_reserved' }, amount: -amount },
      { account: { userId: r.takerUserId, kind: 'user_available' }, amount },
    ],
  });
}

/** Closes without a fill: every live quote not filled (`quoteReason`), the whole stake released. */
export async function expireRfq(
  tx: Em,
  r: RfqRecord,
  live: readonly QuoteRecord[],
  status: 'expired' | 'cancelled',
  reason: CloseReason,
  quoteReason: QuoteReason,
  nowMs: number,
): Promise<Closed> {
  await release(tx, r, r.stakeMicros);
  await fillsRepository(db(tx)).close(r.id, {
    status,
    closedAtMs: nowMs,
    closeReason: reason,
    filledStake: 0n,
    payout: null,
    oddsBps: null,
    positionId: null,
  });
  const outcomes: QuoteOutcome[] = live.map((q) => ({ quoteId: q.id, status: 'not_filled', reason: quoteReason as 'rfq_expired' }));
  return { ...(await finish(tx, r, live, outcomes, null, nowMs)), allocation: null };
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
): Promise<Closed> {
  const makerUsers = [...new Set(candidates.map((q) => q.makerUserId).filter((u): u is string => u !== null))];
  const balances = await lockUserBalances(tx, [r.takerUserId, ...makerUsers], ['user_available', 'user_reserved']);
  const byId = new Map(candidates.map((q) => [q.id, q]));
  const domain = rfqDomain(deps.settings.eip712Name, deps.settings.signingChainId);
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
      verifySignature: async (c) => {
        const q = byId.get(c.quoteId)!;
        const v = await verifyQuoteSignature(
          domain,
          { rfq_id: r.id, maker: q.makerAddress, odds_bps: q.oddsBps, max_fill_micros: Number(q.maxFillMicros), valid_until_ms: q.validUntilMs },
          q.signature,
        );
        return v.ok;
      },
      hasCollateral: (c, liability) => {
        const user = byId.get(c.quoteId)!.makerUserId;
        if (!user) return false;
        const key = `${user}:user_available`;
        const available = balances.get(key) ?? 0n;
        if (available < liability) return false;
        balances.set(key, available - liability);
        return true;
      },
    },
  );
  const outbid: QuoteOutcome[] = others.map((q) => ({ quoteId: q.id, status: 'not_filled', reason: 'outbid' }));
  const all = [...candidates, ...others];

  if (allocation.status === 'expired') {
    await release(tx, r, r.stakeMicros);
    await fillsRepository(db(tx)).close(r.id, {
      status: 'expired',
      closedAtMs: nowMs,
      closeReason: allocation.reason,
      filledStake: 0n,
      payout: null,
      oddsBps: null,
      positionId: null,
    });
    return { ...(await finish(tx, r, all, [...allocation.quotes, ...outbid], null, nowMs)), allocation };
  }

  const repo = fillsRepository(db(tx));
  const positionId = randomUUID();
  await repo.insertPosition({
    id: positionId,
    rfqId: r.id,
    takerUserId: r.takerUserId,
    takerAddress: r.takerAddress,
    stake: allocation.filledStakeMicros,
    payout: allocation.payoutMicros,
    oddsBps: allocation.oddsBps,
    createdAtMs: nowMs,
  });
  await repo.insertLegs(
    positionId,
    r.legs.map((l) => ({ marketId: l.market_id, direction: l.direction })),
  );
  await repo.insertFills(
    positionId,
    nowMs,
    allocation.fills.map((f) => ({
      id: randomUUID(),
      quoteId: f.quote.quoteId,
      makerAddress: f.quote.makerAddress,
      makerUserId: byId.get(f.quote.quoteId)!.makerUserId!,
      stake: f.fillMicros,
      oddsBps: f.quote.oddsBps,
      payout: f.payoutMicros,
      liability: f.liabilityMicros,
    })),
  );
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
  if (makerEntries.length) await post(tx, { kind: 'rfq_fill', reference: positionId, idempotencyKey: `rfq:${r.id}`, entries: makerEntries });
  await release(tx, r, allocation.releasedMicros);
  await repo.bumpOpenStats([
    { owner: `user:${r.takerUserId}`, openCount: 1, openStake: allocation.filledStakeMicros, potentialPayout: allocation.payoutMicros },
    ...allocation.fills.map((f) => ({
      owner: `mm:${f.quote.makerAddress}`,
      openCount: 1,
      openStake: f.liabilityMicros,
      potentialPayout: f.payoutMicros,
    })),
  ]);
  await repo.close(r.id, {
    status: 'filled',
    closedAtMs: nowMs,
    closeReason: null,
    filledStake: allocation.filledStakeMicros,
    payout: allocation.payoutMicros,
    oddsBps: allocation.oddsBps,
    positionId,
  });
  return { ...(await finish(tx, r, all, [...allocation.quotes, ...outbid], positionId, nowMs)), allocation };
}
