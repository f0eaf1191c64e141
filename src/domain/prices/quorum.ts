// The quorum rule of window resolution (docs/prices.md), pure. Each listed source gives an open reading (at
// or before start_at_ms) and a close reading (at or before end_at_ms). A source votes only when both exist,
// neither was observed more than its own maximum age (<SOURCE>_MAX_AGE_MS) before its time, and they are two
// observations (the same one at open and close means the source saw nothing during the window: a 60 s candle
// under a 5 s window, a Chainlink round that was not updated); its vote is YES iff close > open. Otherwise it
// abstains with a reason code (src/adapters/prices/reasons.ts).
// An outcome wins when at least `quorum` sources vote for it and more vote for it than against it.
// Otherwise the window waits for more readings, and is DISPUTED once nothing more can come (every listed
// source voted or abstained for a final reason) or the wait is over.
import type { MarketOutcome } from '../../db/vocabulary.js';
import { windowOutcome, type PriceObservation } from './feed.js';
import { isFinal, type AbstainReason } from '../../adapters/prices/reasons.js';

export interface SourceReading {
  source: string;
  open: PriceObservation | null;
  close: PriceObservation | null;
  /** Why the source gave no open or close reading (the open's reason first). */
  reason?: AbstainReason;
  /** What happened, for the logs and the stored record: URLs removed, never shown to clients. */
  error?: string;
}

/** The source's vote, or why it has none: `stale` (a reading older than its age, or one observation for both), `missing` (no reading). */
export type Verdict = MarketOutcome | 'stale' | 'missing';

export interface QuorumRule {
  sources: readonly string[];
  quorum: number;
  /** Each source's maximum observation age, ms. */
  maxAgeMs: Readonly<Record<string, number>>;
}

export interface Judgement {
  verdict: Verdict;
  /** Why it did not vote; null when it voted. */
  reason: AbstainReason | null;
  /** Nothing more can come from this source for this window (it voted, or abstained for a final reason). */
  final: boolean;
}

export interface JudgedReading extends Omit<SourceReading, 'reason'>, Judgement {
  /** The maximum age the source's readings were judged by. */
  maxAgeMs: number;
}

export type QuorumDecision =
  | { kind: 'agreed'; outcome: MarketOutcome; readings: JudgedReading[]; by: JudgedReading }
  | { kind: 'undecided'; reason: 'disagreement' | 'too_few_readings'; complete: boolean; readings: JudgedReading[] };

const fresh = (o: PriceObservation, atMs: number, maxAgeMs: number) => o.observedAtMs <= atMs && atMs - o.observedAtMs <= maxAgeMs;

export function judgeReading(r: SourceReading, startMs: number, endMs: number, maxAgeMs: number): Judgement {
  if (!r.open || !r.close) {
    const reason = r.reason ?? 'no_observation';
    return { verdict: 'missing', reason, final: isFinal(reason) };
  }
  if (!fresh(r.open, startMs, maxAgeMs) || !fresh(r.close, endMs, maxAgeMs))
    return { verdict: 'stale', reason: 'observation_too_old', final: true };
  if (r.open.observedAtMs === r.close.observedAtMs && r.open.sourceRef === r.close.sourceRef) {
    return { verdict: 'stale', reason: 'same_observation', final: true };
  }
  return { verdict: windowOutcome(r.open.priceMicros, r.close.priceMicros), reason: null, final: true };
}

export const judge = (r: SourceReading, startMs: number, endMs: number, maxAgeMs: number): Verdict =>
  judgeReading(r, startMs, endMs, maxAgeMs).verdict;

/** Every source of `sources` given the same age (a rule written with one PRICE_MAX_AGE_MS, before per-source ages). */
export const sameAge = (sources: readonly string[], maxAgeMs: number): Record<string, number> =>
  Object.fromEntries(sources.map((s) => [s, maxAgeMs]));

/**
 * Applies the rule to the readings of the listed sources (a source without a reading may be absent).
 * `by` is the first agreeing source in PRICE_FEED order: its prices are the window's open and close.
 */
export function decide(rule: QuorumRule, readings: readonly SourceReading[], startMs: number, endMs: number): QuorumDecision {
  const judged: JudgedReading[] = rule.sources.map((source) => {
    // A source with no reading at all (it was not asked, or its read failed outright) may still answer.
    const r = readings.find((x) => x.source === source) ?? { source, open: null, close: null, reason: 'source_error' as const };
    const maxAgeMs = rule.maxAgeMs[source] ?? 0;
    return { ...r, ...judgeReading(r, startMs, endMs, maxAgeMs), maxAgeMs };
  });
  const yes = judged.filter((r) => r.verdict === 'YES').length;
  const no = judged.filter((r) => r.verdict === 'NO').length;
  const winner: MarketOutcome | null = yes >= rule.quorum && yes > no ? 'YES' : no >= rule.quorum && no > yes ? 'NO' : null;
  if (winner) return { kind: 'agreed', outcome: winner, readings: judged, by: judged.find((r) => r.verdict === winner)! };
  return {
    kind: 'undecided',
    reason: yes > 0 && no > 0 ? 'disagreement' : 'too_few_readings',
    complete: judged.every((r) => r.final),
    readings: judged,
  };
}

/** The rule as a client reads it: `2 of pyth,binance,okx agree; each reading at most its source's age old (pyth 2000 ms, ...)`. */
export function describeRule(rule: QuorumRule): string {
  const ages = rule.sources.map((s) => `${s} ${rule.maxAgeMs[s] ?? 0} ms`).join(', ');
  return `${rule.quorum} of ${rule.sources.join(',')} agree; each reading at most its source's age old (${ages})`;
}
