import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

const takes = (b: TokenBucket, n: number, at: number) => Array.from({ length: n }, () => b.take(at)).filter(Boolean).length;

describe('TokenBucket', () => {
  it('allows a burst of one second, then refuses until time refills it', () => {
    const b = new TokenBucket(5, 1_000);
    expect(takes(b, 8, 1_000)).toBe(5);
    expect(b.take(1_000)).toBe(false);
    expect(b.take(1_199)).toBe(false); // 0.995 of a token
    expect(b.take(1_200)).toBe(true); // one token per 200 ms
    expect(b.take(1_200)).toBe(false);
  });

  it('refills at the rate and never above the burst', () => {
    const b = new TokenBucket(10, 0);
    expect(takes(b, 10, 0)).toBe(10);
    expect(takes(b, 10, 500)).toBe(5);
    expect(takes(b, 50, 60_000)).toBe(10);
  });

  it('a clock stepping back does not refill or drain', () => {
    const b = new TokenBucket(2, 10_000);
    expect(takes(b, 2, 10_000)).toBe(2);
    expect(b.take(5_000)).toBe(false);
    expect(b.take(10_499)).toBe(false);
    expect(b.take(10_500)).toBe(true);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket(0, 0)).toThrow(RangeError);
  });
});
