import { describe, expect, it } from 'vitest';
import { effectiveTotal } from '../http/connection-limits.js';
import { FrameBudget, JUNK_FRAME_BURST, LocalConnectionSlots } from './limits.js';

describe('FrameBudget', () => {
  it('a bucket of framesPerSecond refilled at that rate', () => {
    const b = new FrameBudget({ framesPerSecond: 10, frameBurst: 10, maxQueuedFrames: 5, maxUnauthenticatedFrames: 3 }, 0);
    for (let i = 0; i < 10; i++) expect(b.takeFrame(0)).toBe(true);
    expect(b.takeFrame(0)).toBe(false);
    expect(b.takeFrame(99)).toBe(false); // 0.99 of a frame refilled
    expect(b.takeFrame(100)).toBe(true);
    expect(b.takeFrame(100_000)).toBe(true); // refills to the bucket size, not beyond
    for (let i = 0; i < 9; i++) expect(b.takeFrame(100_000)).toBe(true);
    expect(b.takeFrame(100_000)).toBe(false);
  });

  it('a burst bucket larger than the rate: the burst at once, then the rate; junk has its own small bucket', () => {
    const b = new FrameBudget({ framesPerSecond: 10, frameBurst: 250, maxQueuedFrames: 5, maxUnauthenticatedFrames: 3 }, 0);
    for (let i = 0; i < 250; i++) expect(b.takeFrame(0)).toBe(true);
    expect(b.takeFrame(0)).toBe(false);
    expect(b.takeFrame(100)).toBe(true); // refilled at 10 per second
    expect(b.takeFrame(100)).toBe(false);
    for (let i = 0; i < JUNK_FRAME_BURST; i++) expect(b.takeJunk(0)).toBe(true);
    expect(b.takeJunk(0)).toBe(false);
  });

  it('counts frames before authentication', () => {
    const b = new FrameBudget({ framesPerSecond: 10, frameBurst: 10, maxQueuedFrames: 5, maxUnauthenticatedFrames: 3 }, 0);
    expect([1, 2, 3, 4].map(() => b.takeUnauthenticated())).toEqual([true, true, true, false]);
  });
});

describe('LocalConnectionSlots', () => {
  it('caps unauthenticated connections separately, within the per-address cap', () => {
    const s = new LocalConnectionSlots(3, 2);
    expect([s.open('a'), s.open('a'), s.open('a')]).toEqual([null, null, 'too_many_unauthenticated']);
    expect(s.open('b')).toBeNull(); // per address
    s.authenticated('a');
    expect(s.check('a')).toBeNull();
    expect(s.open('a')).toBeNull();
    expect(s.check('a')).toBe('too_many_connections');
    s.close('a', true);
    expect(s.check('a')).toBe('too_many_unauthenticated');
    s.close('a', false);
    expect(s.open('a')).toBeNull();
  });
});

describe('effectiveTotal', () => {
  it('keeps the configured total unless the open-file limit is lower', () => {
    expect(effectiveTotal(8192, 20000)).toBe(8192);
    expect(effectiveTotal(8192, 1024)).toBe(768);
    expect(effectiveTotal(0, 1024)).toBe(768);
    expect(effectiveTotal(0, null)).toBe(0);
    expect(effectiveTotal(100, 10)).toBe(1);
  });
});
