// Pure contest rules (docs/getting-started.md, Contests): scoring, standard competition ranking and pot splitting.
// No I/O here: the resolution and the reads call these with rows they loaded.
import type { Direction, MarketOutcome } from '../../db/vocabulary.js';

export type { Direction };

/** `up` is the YES side, `down` the NO side. */
export const winningDirection = (outcome: MarketOutcome): Direction => (outcome === 'YES' ? 'up' : 'down');

/**
 * Outcast: the side fewer entries chose. With equal counts neither side is the minority, so no pick on
 * that market scores (documented in the spec).
 */
export function minoritySide(upCount: number, downCount: number): Direction | null {
  if (upCount === downCount) return null;
  return upCount < downCount ? 'up' : 'down';
}

/** Does a won pick on a market resolved with `outcome` add to the score? Lineups: always; outcast: minority only. */
export function winScores(gameType: string, outcome: MarketOutcome, upCount: number, downCount: number): boolean {
  if (gameType !== 'outcast') return true;
  return minoritySide(upCount, downCount) === winningDirection(outcome);
}

/**
 * Standard competition ranks ("1224") of scores already sorted in descending order: a tied entry shares the
 * rank of the first entry with its score, and the next score's rank skips the tied positions.
 */
export function competitionRanks(scoresDesc: readonly number[]): number[] {
  const ranks: number[] = [];
  for (let i = 0; i < scoresDesc.length; i++) {
    if (i > 0 && scoresDesc[i]! > scoresDesc[i - 1]!) throw new Error('competitionRanks needs scores in descending order');
    ranks.push(i > 0 && scoresDesc[i] === scoresDesc[i - 1] ? ranks[i - 1]! : i + 1);
  }
  return ranks;
}

/** Rank of `score` given how many entries hold each score: 1 + the entries with a higher score. */
export function rankFromCounts(counts: ReadonlyArray<{ score: number; entries: number }>, score: number): number {
  let above = 0;
  for (const c of counts) if (c.score > score) above += c.entries;
  return above + 1;
}

export interface RankedEntry {
  id: string;
  score: number;
  createdAtMs: number;
}

/** Orders entries for the leaderboard (score desc, then earlier entry, then id) and ranks them. */
export function rankEntries<T extends RankedEntry>(entries: readonly T[]): Array<T & { rank: number }> {
  const sorted = [...entries].sort(
    (a, b) => b.score - a.score || a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const ranks = competitionRanks(sorted.map((e) => e.score));
  return sorted.map((e, i) => ({ ...e, rank: ranks[i]! }));
}

export interface PotSplit {
  /** Payout per entry id, for every ranked entry (0n for an entry outside the paid positions). */
  payouts: Map<string, bigint>;
  /** What no position receives (unallocated bps and rounding): goes to the protocol. */
  remainder: bigint;
}

/**
 * Splits `pot` by `winningSplitBps` (index 0 = position 1). Entries tied at rank r occupying positions
 * r..r+k-1 share equally the bps of those positions: the group's amount is floor(pot * sum(bps) / 10000),
 * each entry gets floor(group / k). Everything left over (bps not assigned, rounding) is the remainder.
 */
export function splitPot(pot: bigint, winningSplitBps: readonly number[], ranked: ReadonlyArray<{ id: string; rank: number }>): PotSplit {
  if (pot < 0n) throw new Error('the pot cannot be negative');
  const totalBps = winningSplitBps.reduce((a, b) => a + b, 0);
  if (totalBps > 10_000 || winningSplitBps.some((b) => b < 0 || !Number.isInteger(b)))
    throw new Error('winning_split_bps must be non-negative integers summing to at most 10000');
  const payouts = new Map<string, bigint>();
  const groups = new Map<number, string[]>();
  for (const e of ranked) {
    const g = groups.get(e.rank) ?? [];
    g.push(e.id);
    groups.set(e.rank, g);
  }
  let paid = 0n;
  for (const [rank, ids] of groups) {
    let bps = 0;
    for (let pos = rank; pos < rank + ids.length; pos++) bps += winningSplitBps[pos - 1] ?? 0;
    const each = (pot * BigInt(bps)) / 10_000n / BigInt(ids.length);
    for (const id of ids) payouts.set(id, each);
    paid += each * BigInt(ids.length);
  }
  if (paid > pot) throw new Error('payouts exceed the pot'); // impossible by construction; refuse rather than print money
  return { payouts, remainder: pot - paid };
}

/** `protocol_prize_pool_micros + entries_filled * bet_amount_micros`. */
export const totalPot = (prizePool: bigint, entriesFilled: number, betAmount: bigint): bigint =>
  prizePool + BigInt(entriesFilled) * betAmount;
