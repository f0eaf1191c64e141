import { describe, expect, it } from 'vitest';
import { competitionRanks, minoritySide, rankEntries, rankFromCounts, splitPot, totalPot, winScores, winningDirection } from './scoring.js';

describe('ranking', () => {
  it('standard competition ranking: ties share a rank and the next rank skips (1, 2, 2, 4)', () => {
    expect(competitionRanks([5, 3, 3, 1])).toEqual([1, 2, 2, 4]);
    expect(competitionRanks([2, 2, 2])).toEqual([1, 1, 1]);
    expect(competitionRanks([])).toEqual([]);
    expect(competitionRanks([0])).toEqual([1]);
    expect(() => competitionRanks([1, 2])).toThrow(/descending/);
  });

  it('orders by score, then the earlier entry, then id', () => {
    const ranked = rankEntries([
      { id: 'c', score: 1, createdAtMs: 30 },
      { id: 'a', score: 2, createdAtMs: 50 },
      { id: 'b', score: 1, createdAtMs: 10 },
      { id: 'd', score: 1, createdAtMs: 10 },
      { id: 'e', score: 0, createdAtMs: 1 },
    ]);
    expect(ranked.map((e) => [e.id, e.rank])).toEqual([
      ['a', 1],
      ['b', 2],
      ['d', 2],
      ['c', 2],
      ['e', 5],
    ]);
  });

  it('a rank from the per-score counts equals the rank from sorting every entry', () => {
    const scores = [4, 4, 3, 1, 1, 1, 0];
    const counts = [
      { score: 4, entries: 2 },
      { score: 3, entries: 1 },
      { score: 1, entries: 3 },
      { score: 0, entries: 1 },
    ];
    const ranks = competitionRanks(scores);
    scores.forEach((s, i) => expect(rankFromCounts(counts, s)).toBe(ranks[i]));
    expect(rankFromCounts([], 0)).toBe(1);
  });
});

describe('scoring', () => {
  it('up is YES, down is NO', () => {
    expect(winningDirection('YES')).toBe('up');
    expect(winningDirection('NO')).toBe('down');
  });

  it('outcast counts only wins on the side fewer entries chose; a tie has no minority', () => {
    expect(minoritySide(3, 7)).toBe('up');
    expect(minoritySide(7, 3)).toBe('down');
    expect(minoritySide(4, 4)).toBeNull();
    expect(winScores('outcast', 'YES', 3, 7)).toBe(true);
    expect(winScores('outcast', 'NO', 3, 7)).toBe(false);
    expect(winScores('outcast', 'YES', 5, 5)).toBe(false);
    expect(winScores('lineups', 'NO', 3, 7)).toBe(true);
    expect(winScores('lineups', 'YES', 3, 7)).toBe(true);
  });
});

describe('splitPot', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `e${i}`);
  const sum = (m: Map<string, bigint>) => [...m.values()].reduce((a, b) => a + b, 0n);

  it('pays each position its basis points and gives the unassigned rest to the protocol', () => {
    const ranked = ids(4).map((id, i) => ({ id, rank: i + 1 }));
    const { payouts, remainder } = splitPot(1_000_000n, [6000, 3000, 1000], ranked);
    expect([...payouts.values()]).toEqual([600_000n, 300_000n, 100_000n, 0n]);
    expect(remainder).toBe(0n);
    const partial = splitPot(1_000_000n, [5000], ranked);
    expect(partial.payouts.get('e0')).toBe(500_000n);
    expect(partial.remainder).toBe(500_000n);
  });

  it('tied entries share equally the positions they occupy (1, 2, 2, 4)', () => {
    const ranked = [
      { id: 'a', rank: 1 },
      { id: 'b', rank: 2 },
      { id: 'c', rank: 2 },
      { id: 'd', rank: 4 },
    ];
    const { payouts, remainder } = splitPot(1_000_000n, [5000, 3000, 1000, 1000], ranked);
    expect(payouts.get('a')).toBe(500_000n);
    expect(payouts.get('b')).toBe(200_000n); // (3000 + 1000) bps shared by two
    expect(payouts.get('c')).toBe(200_000n);
    expect(payouts.get('d')).toBe(100_000n);
    expect(remainder).toBe(0n);
  });

  it('a tie reaching past the paid positions shares only the positions that pay', () => {
    const ranked = ids(3).map((id) => ({ id, rank: 1 }));
    const { payouts, remainder } = splitPot(900n, [10_000], ranked);
    expect([...payouts.values()]).toEqual([300n, 300n, 300n]);
    expect(remainder).toBe(0n);
  });

  it('integer micros: rounding leftovers go to the protocol, nothing is created or lost', () => {
    const ranked = ids(3).map((id) => ({ id, rank: 1 }));
    const { payouts, remainder } = splitPot(1_000_001n, [6000, 3000, 1000], ranked);
    expect([...payouts.values()]).toEqual([333_333n, 333_333n, 333_333n]);
    expect(remainder).toBe(2n);
    expect(sum(payouts) + remainder).toBe(1_000_001n);
    for (let pot = 0n; pot < 50n; pot++) {
      const r = splitPot(
        pot,
        [3333, 3333, 3334],
        [
          { id: 'x', rank: 1 },
          { id: 'y', rank: 2 },
          { id: 'z', rank: 2 },
        ],
      );
      expect(sum(r.payouts) + r.remainder).toBe(pot);
      expect(r.remainder >= 0n).toBe(true);
    }
  });

  it('an empty contest pays nobody: the whole pot is the remainder', () => {
    const { payouts, remainder } = splitPot(5_000n, [10_000], []);
    expect(payouts.size).toBe(0);
    expect(remainder).toBe(5_000n);
  });

  it('refuses splits that would print money', () => {
    expect(() => splitPot(100n, [6000, 5000], [])).toThrow(/10000/);
    expect(() => splitPot(-1n, [10_000], [])).toThrow(/negative/);
  });

  it('the total pot is the protocol pool plus one bet per entry', () => {
    expect(totalPot(100_000_000n, 12, 5_000_000n)).toBe(160_000_000n);
    expect(totalPot(0n, 0, 5n)).toBe(0n);
  });
});
