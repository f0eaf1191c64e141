import { describe, expect, it } from 'vitest';
import { bufferProblem } from '../../config/rules.js';
import { bettingClosesAt, currentWindow, isAligned, windowStart, windowsToPrepare } from './windows.js';

const T = 1_767_225_600_000; // 2026-01-01T00:00:00Z, a multiple of every default duration

describe('windowStart', () => {
  it('aligns to multiples of the duration since the epoch', () => {
    expect(windowStart(T, 300)).toBe(T);
    expect(windowStart(T + 1, 300)).toBe(T);
    expect(windowStart(T + 299_999, 300)).toBe(T);
    expect(windowStart(T + 300_000, 300)).toBe(T + 300_000);
    expect(windowStart(T - 1, 300)).toBe(T - 300_000);
    expect(windowStart(0, 60)).toBe(0);
    expect(windowStart(T + 3 * 3600_000 + 5, 14400) % 14_400_000).toBe(0);
  });

  it('isAligned', () => {
    expect(isAligned(T, 86400)).toBe(true);
    expect(isAligned(T + 60_000, 60)).toBe(true);
    expect(isAligned(T + 1, 60)).toBe(false);
    expect(isAligned(T + 60_000, 300)).toBe(false);
  });
});

describe('currentWindow', () => {
  const buffer = 10_000;
  it('betting closes buffer ms before the window ends', () => {
    expect(bettingClosesAt(T, 300, buffer)).toBe(T + 290_000);
    expect(currentWindow(T, 300, buffer)).toEqual({ startAtMs: T, bettingClosesAtMs: T + 290_000 });
  });

  it('one millisecond before betting close: still the window containing now', () => {
    expect(currentWindow(T + 289_999, 300, buffer).startAtMs).toBe(T);
  });

  it('exactly at betting close: the next window', () => {
    expect(currentWindow(T + 290_000, 300, buffer)).toEqual({ startAtMs: T + 300_000, bettingClosesAtMs: T + 590_000 });
  });

  it('inside the buffer and on the last millisecond of the window: the next window', () => {
    expect(currentWindow(T + 295_000, 300, buffer).startAtMs).toBe(T + 300_000);
    expect(currentWindow(T + 299_999, 300, buffer).startAtMs).toBe(T + 300_000);
    expect(currentWindow(T + 300_000, 300, buffer).startAtMs).toBe(T + 300_000);
  });

  it('buffer 0: the window containing now until its very end', () => {
    expect(currentWindow(T + 299_999, 300, 0)).toEqual({ startAtMs: T, bettingClosesAtMs: T + 300_000 });
    expect(currentWindow(T + 300_000, 300, 0).startAtMs).toBe(T + 300_000);
  });

  it('largest buffer (duration - 1 ms): only the first millisecond of a window is its own', () => {
    expect(currentWindow(T, 60, 59_999).startAtMs).toBe(T);
    expect(currentWindow(T + 1, 60, 59_999).startAtMs).toBe(T + 60_000);
  });

  it('refuses a buffer >= the duration (no betting time at all)', () => {
    expect(() => currentWindow(T, 60, 60_000)).toThrow(RangeError);
    expect(() => currentWindow(T, 60, 90_000)).toThrow(RangeError);
    expect(() => currentWindow(T, 60, -1)).toThrow(RangeError);
  });

  it('windowsToPrepare: the current window and the next one', () => {
    expect(windowsToPrepare(T + 1000, 300, buffer)).toEqual([T, T + 300_000]);
    expect(windowsToPrepare(T + 290_000, 300, buffer)).toEqual([T + 300_000, T + 600_000]);
  });
});

describe('bufferProblem', () => {
  it('accepts a buffer below the shortest duration', () => {
    expect(bufferProblem([60, 300], 59_999)).toBeNull();
    expect(bufferProblem([60], 0)).toBeNull();
  });
  it('names the durations a buffer leaves without betting time', () => {
    const p = bufferProblem([60, 300, 900], 300_000);
    expect(p).toContain('60, 300 s');
    expect(p).toContain('60000 ms');
    expect(bufferProblem([60], 60_000)).toContain('60 s');
  });
});
