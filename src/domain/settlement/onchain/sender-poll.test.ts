// A waiting settlement's polling backs off (src/domain/settlement/onchain/sender.ts, pollDelay): CHAIN_POLL_MS
// first, then 1.5 times longer each look, capped at POLL_BACKOFF_MAX times CHAIN_POLL_MS.
import { describe, expect, it } from 'vitest';
import { POLL_BACKOFF_MAX, pollDelay } from './sender.js';

describe('pollDelay', () => {
  it('starts at CHAIN_POLL_MS, grows by half each wait, stops at the cap', () => {
    const delays = Array.from({ length: 10 }, (_, i) => pollDelay(1000, i));
    expect(delays.slice(0, 4)).toEqual([1000, 1500, 2250, 3375]);
    expect(Math.max(...delays)).toBe(1000 * POLL_BACKOFF_MAX);
    // A settlement waiting 2 minutes for its confirmations asks the node far less than once a second.
    let t = 0;
    let looks = 0;
    while (t < 120_000) t += pollDelay(1000, looks++);
    expect(looks).toBeLessThan(25);
  });
});
