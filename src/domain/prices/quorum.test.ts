// The quorum rule and the exact decimal scaling, pure.
import { describe, expect, it } from 'vitest';
import { decimalToMicros, scaledToMicros } from '../../adapters/prices/decimal.js';
import { decide, describeRule, judge, judgeReading, sameAge, type SourceReading } from './quorum.js';
import { pythToMicros } from '../../adapters/prices/pyth.js';

const START = 1_767_225_600_000;
const END = START + 60_000;
const obs = (priceMicros: bigint, observedAtMs: number) => ({ priceMicros, observedAtMs });
const up = (source: string): SourceReading => ({ source, open: obs(100n, START - 1), close: obs(101n, END - 1) });
const down = (source: string): SourceReading => ({ source, open: obs(100n, START), close: obs(100n, END) });
const rule = { sources: ['chainlink', 'binance', 'coinbase'], quorum: 2, maxAgeMs: sameAge(['chainlink', 'binance', 'coinbase'], 5000) };

describe('decimalToMicros', () => {
  it('scales decimal text exactly, cutting past the sixth decimal, with no float on the way', () => {
    expect(decimalToMicros('97123.45000000')).toBe(97_123_450_000n);
    expect(decimalToMicros('0.1')).toBe(100_000n);
    expect(decimalToMicros('3001.6255409')).toBe(3_001_625_540n);
    expect(decimalToMicros('42')).toBe(42_000_000n);
    expect(decimalToMicros('1.5e-7')).toBe(0n);
    expect(decimalToMicros('2.5E3')).toBe(2_500_000_000n);
    // 0.1 + 0.2 style float error cannot happen: 9007199254740993.000001 is beyond a double's precision.
    expect(decimalToMicros('9007199254740.993001')).toBe(9_007_199_254_740_993_001n);
    for (const bad of ['', '-1', '1.', '.5', 'abc', '1,5', 'NaN', '1e999', '99999999999999999999'])
      expect(decimalToMicros(bad), bad).toBeNull();
  });

  it('scales an integer answer by its decimals', () => {
    expect(scaledToMicros(9_712_345_000_000n, 8)).toBe(97_123_450_000n);
    expect(scaledToMicros(3_001_625_540_123_456_789_000n, 18)).toBe(3_001_625_540n);
    expect(scaledToMicros(97_123n, 0)).toBe(97_123_000_000n);
  });

  it('scales a Pyth price × 10^expo exactly, whatever the exponent', () => {
    expect(pythToMicros('5924002645461', -8)).toBe(59_240_026_454n); // 59240.02645461, cut toward zero
    expect(pythToMicros('2528354539', -8)).toBe(25_283_545n);
    expect(pythToMicros('123', -2)).toBe(1_230_000n);
    expect(pythToMicros('7', 3)).toBe(7_000_000_000n);
    expect(pythToMicros('99999999999999999', -12)).toBe(99_999_999_999n); // past 2^53: exact as bigint
  });
});

describe('the quorum rule', () => {
  it('a source votes YES iff close > open, with both readings at most maxAgeMs before their time', () => {
    expect(judge(up('a'), START, END, 5000)).toBe('YES');
    expect(judge(down('a'), START, END, 5000)).toBe('NO');
    expect(judge({ source: 'a', open: null, close: obs(1n, END) }, START, END, 5000)).toBe('missing');
    expect(judge({ source: 'a', open: obs(1n, START - 5000), close: obs(2n, END) }, START, END, 5000)).toBe('YES');
    expect(judge({ source: 'a', open: obs(1n, START - 5001), close: obs(2n, END) }, START, END, 5000)).toBe('stale');
    expect(judge({ source: 'a', open: obs(1n, START), close: obs(2n, END + 1) }, START, END, 5000)).toBe('stale'); // from the future
    // One observation for both (a candle longer than the window, a round not updated): no vote, not a tie.
    const same = { priceMicros: 5n, observedAtMs: START - 1, sourceRef: 'candle:1' };
    expect(judge({ source: 'a', open: same, close: { ...same } }, START, START + 8000, 60_000)).toBe('stale');
    expect(
      judge(
        { source: 'a', open: same, close: { ...same, observedAtMs: START + 7000, sourceRef: 'candle:2' } },
        START,
        START + 8000,
        60_000,
      ),
    ).toBe('NO');
  });

  it('resolves when a quorum agrees and outnumbers the others; the first agreeing source in order gives the prices', () => {
    const all = decide(rule, [up('chainlink'), up('binance'), up('coinbase')], START, END);
    expect(all).toMatchObject({ kind: 'agreed', outcome: 'YES', by: { source: 'chainlink' } });
    const twoToOne = decide(rule, [down('chainlink'), up('binance'), up('coinbase')], START, END);
    expect(twoToOne).toMatchObject({ kind: 'agreed', outcome: 'YES', by: { source: 'binance' } });
    expect(twoToOne.readings.map((r) => r.verdict)).toEqual(['NO', 'YES', 'YES']);
    const oneDown = decide(rule, [up('binance'), up('coinbase')], START, END);
    expect(oneDown).toMatchObject({ kind: 'agreed', outcome: 'YES' });
    expect(oneDown.readings.map((r) => r.verdict)).toEqual(['missing', 'YES', 'YES']);
  });

  it('undecided: too few readings (waiting), or a split; complete once every source voted', () => {
    expect(decide(rule, [up('binance')], START, END)).toMatchObject({ kind: 'undecided', reason: 'too_few_readings', complete: false });
    expect(decide(rule, [up('binance'), down('coinbase')], START, END)).toMatchObject({
      kind: 'undecided',
      reason: 'disagreement',
      complete: false,
    });
    const q1 = { ...rule, quorum: 1 };
    expect(decide(q1, [up('chainlink'), down('binance')], START, END)).toMatchObject({ kind: 'undecided', reason: 'disagreement' });
    const four = { sources: ['a', 'b', 'c', 'd'], quorum: 2, maxAgeMs: sameAge(['a', 'b', 'c', 'd'], 5000) };
    expect(decide(four, [up('a'), up('b'), down('c'), down('d')], START, END)).toMatchObject({
      kind: 'undecided',
      reason: 'disagreement',
      complete: true,
    });
    expect(describeRule({ ...rule, maxAgeMs: { chainlink: 3_660_000, binance: 2000, coinbase: 60_000 } })).toBe(
      "2 of chainlink,binance,coinbase agree; each reading at most its source's age old (chainlink 3660000 ms, binance 2000 ms, coinbase 60000 ms)",
    );
  });

  it('each source is judged by its own age, and says why it did not vote', () => {
    const ages = { binance: 2000, coinbase: 60_000 };
    const r = { open: obs(100n, START - 30_000), close: obs(101n, END - 30_000) };
    const d = decide(
      { sources: ['binance', 'coinbase'], quorum: 1, maxAgeMs: ages },
      [
        { source: 'binance', ...r },
        { source: 'coinbase', ...r },
      ],
      START,
      END,
    );
    expect(d.readings.map((x) => [x.source, x.verdict, x.reason, x.maxAgeMs])).toEqual([
      ['binance', 'stale', 'observation_too_old', 2000],
      ['coinbase', 'YES', null, 60_000],
    ]);
    expect(judgeReading({ source: 'a', open: null, close: null, reason: 'blocked' }, START, END, 1000)).toEqual({
      verdict: 'missing',
      reason: 'blocked',
      final: false,
    });
    expect(judgeReading({ source: 'a', open: null, close: obs(1n, END), reason: 'boundary_not_published' }, START, END, 1000)).toEqual({
      verdict: 'missing',
      reason: 'boundary_not_published',
      final: true,
    });
  });

  it('decides at once when nothing more can come; waits while a source may still answer', () => {
    const ages = sameAge(['a', 'b', 'c'], 5000);
    const gone = (source: string): SourceReading => ({ source, open: null, close: null, reason: 'boundary_not_published' });
    const later = (source: string): SourceReading => ({ source, open: null, close: null, reason: 'not_published_yet' });
    expect(decide({ sources: ['a', 'b', 'c'], quorum: 2, maxAgeMs: ages }, [up('a'), gone('b'), gone('c')], START, END)).toMatchObject({
      kind: 'undecided',
      reason: 'too_few_readings',
      complete: true,
    });
    expect(decide({ sources: ['a', 'b', 'c'], quorum: 2, maxAgeMs: ages }, [up('a'), gone('b'), later('c')], START, END)).toMatchObject({
      kind: 'undecided',
      complete: false,
    });
  });
});
