// The quorum rule of window resolution (docs/prices.md), pure. Each listed source gives an open reading (at
// or before start_at_ms) and a close reading (at or before end_at_ms). A source votes only when both exist,
// neither was observed more than `maxAgeMs` before its time, and they are two observations (the same one at
// open and close means the source saw nothing during the window: a 60 s candle under an 8 s window, a
// Chainlink round that was not updated); its vote is YES iff close > open.
// An outcome wins when at least `quorum` sources vote for it and more vote for it than against it.
// Otherwise the window waits for more readings, and is DISPUTED once every listed source has voted
// (nothing more can come) or the wait is over.
import type { MarketOutcome } from '../../db/vocabulary.js';
import { windowOutcome, type PriceObservation } from './feed.js';

export interface SourceReading {
  source: string;
  open: PriceObservation | null;
  close: PriceObservation | null;
  /** Why the source gave no reading (an error, a timeout), for the logs and the record. */
  error?: string;
}

/** The source's vote, or why it has none: `stale` (a reading older than maxAgeMs, or one observation for both), `missing` (no reading). */
export type Verdict = MarketOutcome | 'stale' | 'missing';

export interface QuorumRule {
  sources: readonly string[];
  quorum: number;
  maxAgeMs: number;
}

export interface JudgedReading extends SourceReading {
  verdict: Verdict;
}

export type QuorumDecision =
  | { kind: 'agreed'; outcome: MarketOutcome; readings: JudgedReading[]; by: JudgedReading }
  | { kind: 'undecided'; reason: 'disagreement' | 'too_few_readings'; complete: boolean; readings: JudgedReading[] };

const fresh = (o: PriceObservation, atMs: number, maxAgeMs: number) => o.observedAtMs <= atMs && atMs - o.observedAtMs <= maxAgeMs;

export function judge(r: SourceReading, startMs: number, endMs: number, maxAgeMs: number): Verdict {
  if (!r.open || !r.close) return 'missing';
  if (!fresh(r.open, startMs, maxAgeMs) || !fresh(r.close, endMs, maxAgeMs)) return 'stale';
  if (r.open.observedAtMs === r.close.observedAtMs && r.open.sourceRef === r.close.sourceRef) return 'stale';
  return windowOutcome(r.open.priceMicros, r.close.priceMicros);
}

/**
 * Applies the rule to the readings of the listed sources (a source without a reading may be absent).
 * `by` is the first agreeing source in PRICE_FEED order: its prices are the window's open and close.
 */
export function decide(rule: QuorumRule, readings: readonly SourceReading[], startMs: number, endMs: number): QuorumDecision {
  const judged: JudgedReading[] = rule.sources.map((source) => {
    const r = readings.find((x) => x.source === source) ?? { source, open: null, close: null };
    return { ...r, verdict: judge(r, startMs, endMs, rule.maxAgeMs) };
  });
  const yes = judged.filter((r) => r.verdict === 'YES').length;
  const no = judged.filter((r) => r.verdict === 'NO').length;
  const winner: MarketOutcome | null = yes >= rule.quorum && yes > no ? 'YES' : no >= rule.quorum && no > yes ? 'NO' : null;
  if (winner) return { kind: 'agreed', outcome: winner, readings: judged, by: judged.find((r) => r.verdict === winner)! };
  return {
    kind: 'undecided',
    reason: yes > 0 && no > 0 ? 'disagreement' : 'too_few_readings',
    complete: yes + no === judged.length,
    readings: judged,
  };
}

/** The rule as a client reads it: `2 of chainlink,binance,coinbase agree; readings at most 60000 ms old`. */
export function describeRule(rule: QuorumRule): string {
  return `${rule.quorum} of ${rule.sources.join(',')} agree; readings at most ${rule.maxAgeMs} ms old`;
}
