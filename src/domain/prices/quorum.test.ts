// The quorum rule and the exact decimal scaling, pure.
import { describe, expect, it } from 'vitest';
import { decimalToMicros, scaledToMicros } from './decimal.js';
import { decide, describeRule, judge, type SourceReading } from './quorum.js';

const START = 1_767_225_600_000;
const END = START + 60_000;
const obs = (priceMicros: bigint, observedAtMs: number) => ({ priceMicros, observedAtMs });
const up = (source: string): SourceReading => ({ source, open: obs(100n, START - 1), close: obs(101n, END - 1) });
const down = (source: string): SourceReading => ({ source, open: obs(100n, START), close: obs(100n, END) });
const rule = { sources: ['chainlink', 'binance', 'coinbase'], quorum: 2, maxAgeMs: 5000 };

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
    for (const bad of ['', '-1', '1.', '.5', 'abc', '1,5', 'NaN', '1e999', '99999999999999999999']) expect(decimalToMicros(bad), bad).toBeNull();
  });

  it('scales an integer answer by its decimals', () => {
    expect(scaledToMicros(9_712_345_000_000n, 8)).toBe(97_123_450_000n);
    expect(scaledToMicros(3_001_625_540_123_456_789_000n, 18)).toBe(3_001_625_540n);
    expect(scaledToMicros(97_123n, 0)).toBe(97_123_000_000n);
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
      judge({ source: 'a', open: same, close: { ...same, observedAtMs: START + 7000, sourceRef: 'candle:2' } }, START, START + 8000, 60_000),
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
    const four = { sources: ['a', 'b', 'c', 'd'], quorum: 2, maxAgeMs: 5000 };
    expect(decide(four, [up('a'), up('b'), down('c'), down('d')], START, END)).toMatchObject({
      kind: 'undecided',
      reason: 'disagreement',
      complete: true,
    });
    expect(describeRule(rule)).toBe('2 of chainlink,binance,coinbase agree; readings at most 5000 ms old');
  });
});
