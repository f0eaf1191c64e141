// Resolves an ended RFQ window from the price sources by quorum (docs/prices.md). The readings are taken
// outside any transaction; the decision is written in one: the resolution with the check and every reading
// (agreed), or the check and readings alone (DISPUTED). First writer wins: an existing resolution stands,
// and a recorded check is never rewritten. A DISPUTED window waits for the operator until its void_at_ms,
// then voids (stakes refunded).
import type { Em } from '../../db/orm.js';
import { type HealthSample, type ReadingRow } from '../../db/repositories/prices.repository.js';
import { decide, type JudgedReading } from '../prices/quorum.js';
import type { QuorumFeed } from '../prices/read.js';
import type { ResolutionOutcome } from '../../db/vocabulary.js';
import { checkOf } from './window-resolution.js';
import { repos } from '../../db/repos.js';

export type FeedResolution =
  | { kind: 'resolved'; outcome: ResolutionOutcome; recorded: boolean }
  | { kind: 'not_ended' }
  | { kind: 'waiting_for_price' }
  | { kind: 'disputed'; reason: 'disagreement' | 'too_few_readings'; voidAtMs: number; recorded: boolean }
  | { kind: 'missing' };

export interface FeedResolutionOptions {
  nowMs: number;
  /** RESOLUTION_MAX_WAIT_MS: readings still short this long after the window's end -> DISPUTED. */
  maxWaitMs: number;
  /** DISPUTE_VOID_AFTER_MS: a DISPUTED window nobody resolved voids this long after it was disputed. */
  disputeVoidAfterMs: number;
  /** Receives what the source requests cost (price_source_health). */
  onHealth?: (samples: HealthSample[]) => Promise<void> | void;
}

const rowOf = (r: JudgedReading): ReadingRow => ({
  source: r.source,
  verdict: r.verdict,
  openPrice: r.open?.priceMicros ?? null,
  openObservedAtMs: r.open?.observedAtMs ?? null,
  openRef: r.open?.sourceRef ?? null,
  openConfidence: r.open?.confidenceMicros ?? null,
  closePrice: r.close?.priceMicros ?? null,
  closeObservedAtMs: r.close?.observedAtMs ?? null,
  closeRef: r.close?.sourceRef ?? null,
  closeConfidence: r.close?.confidenceMicros ?? null,
  reason: r.reason,
  maxAgeMs: r.maxAgeMs,
  // Internal only (GET /v1/markets/{id} shows the reason code); URLs were removed by the reader.
  error: r.error ?? null,
});

/** Thrown inside the transaction to roll back a check whose resolution lost the race. */
class LostRace extends Error {}

export async function resolveWindowFromFeed(
  em: Em,
  feed: QuorumFeed,
  marketId: number,
  opts: FeedResolutionOptions,
): Promise<FeedResolution> {
  const repo = repos(em).positions;
  const w = await repo.window(marketId);
  if (!w) return { kind: 'missing' };
  if (w.outcome) return { kind: 'resolved', outcome: w.outcome, recorded: false };
  const start = w.start_at_ms;
  const end = start + w.duration_secs * 1000;
  if (opts.nowMs < end) return { kind: 'not_ended' };
  const first = async (): Promise<FeedResolution> => {
    const now = (await repo.window(marketId))!;
    return { kind: 'resolved', outcome: now.outcome!, recorded: false };
  };

  const existing = checkOf(w);
  if (existing?.state === 'disputed') {
    if (opts.nowMs < existing.voidAtMs!)
      return { kind: 'disputed', reason: existing.reason!, voidAtMs: existing.voidAtMs!, recorded: false };
    const recorded = await repo.insertResolution({ ...voidOf(marketId, opts.nowMs) });
    return recorded ? { kind: 'resolved', outcome: 'VOID', recorded } : first();
  }

  const { readings, health } = await feed.read(w.asset, start, end);
  await opts.onHealth?.(health);
  const d = decide(feed.rule, readings, start, end);
  // The check keeps the longest age of the rule; each reading keeps its own source's (the one it was judged by).
  const maxAgeMs = Math.max(0, ...Object.values(feed.rule.maxAgeMs));
  const check = { marketId, quorum: feed.rule.quorum, sources: feed.rule.sources, maxAgeMs, checkedAtMs: opts.nowMs };

  // Decided in SQL: the first record stands. A resolution (PositionsRepository.insertResolution) and a price check
  // (PricesRepository.insertCheck) are each ON CONFLICT DO NOTHING on the window's key; the loser follows the record.
  if (d.kind === 'agreed') {
    try {
      await em.transactional(async (tx) => {
        const r = repos(tx);
        const recorded = await r.positions.insertResolution({
          marketId,
          outcome: d.outcome,
          openPrice: d.by.open!.priceMicros,
          closePrice: d.by.close!.priceMicros,
          source: d.by.source,
          resolvedBy: 'feed',
          resolvedAtMs: opts.nowMs,
        });
        if (!recorded) throw new LostRace();
        await r.prices.insertCheck({ ...check, state: 'agreed', reason: null, voidAtMs: null }, d.readings.map(rowOf));
      });
    } catch (err) {
      if (err instanceof LostRace) return first();
      throw err;
    }
    return { kind: 'resolved', outcome: d.outcome, recorded: true };
  }

  if (!d.complete && opts.nowMs < end + opts.maxWaitMs) return { kind: 'waiting_for_price' };
  const voidAtMs = opts.nowMs + opts.disputeVoidAfterMs;
  const recorded = await em.transactional(async (tx) => {
    const r = repos(tx);
    const ok = await r.prices.insertCheck({ ...check, state: 'disputed', reason: d.reason, voidAtMs }, d.readings.map(rowOf));
    if (ok && opts.disputeVoidAfterMs === 0) await r.positions.insertResolution(voidOf(marketId, opts.nowMs));
    return ok;
  });
  if (!recorded) return resolveWindowFromFeed(em, feed, marketId, opts); // another job recorded first: follow its record
  if (opts.disputeVoidAfterMs === 0)
    return (await repo.window(marketId))!.outcome === 'VOID' ? { kind: 'resolved', outcome: 'VOID', recorded: true } : first();
  return { kind: 'disputed', reason: d.reason, voidAtMs, recorded: true };
}

const voidOf = (marketId: number, nowMs: number) => ({
  marketId,
  outcome: 'VOID' as const,
  openPrice: null,
  closePrice: null,
  source: 'dispute-deadline',
  resolvedBy: 'feed' as const,
  resolvedAtMs: nowMs,
});
