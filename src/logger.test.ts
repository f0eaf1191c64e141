import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoTime } from './logger.js';

afterEach(() => vi.useRealTimers());

describe('isoTime: the time field of every log line', () => {
  it("is pino's isoTime field, also for a second line in the same millisecond and after the clock moves on", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    for (const at of [Date.UTC(2026, 10, 28, 21, 0, 0, 1), Date.UTC(2026, 10, 28, 21, 0, 0, 1), Date.UTC(2026, 10, 28, 21, 0, 0, 2), 0]) {
      vi.setSystemTime(at);
      expect(isoTime()).toBe(pino.stdTimeFunctions.isoTime());
      expect(JSON.parse(`{"a":1${isoTime()}}`)).toEqual({ a: 1, time: new Date(at).toISOString() });
    }
  });
});
