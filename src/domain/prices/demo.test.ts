// Vectors computed independently (Python hashlib) from the formula published in the spec.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';
import { createDemoFeed, demoPriceMicros } from './demo.js';
import { createPriceFeeds } from './create.js';
import { windowOutcome } from './feed.js';

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

describe('demo price feed', () => {
  it('pins the published vectors (seed "demo", 50 bps)', () => {
    const at = (asset: string, ts: number) => demoPriceMicros('demo', asset, ts, 50);
    expect([at('BTC', T0), at('ETH', T0), at('SOL', T0), at('XRP', T0), at('HYPE', T0)]).toEqual([
      100_466_609_571n,
      3_001_625_540n,
      150_614_939n,
      2_009_275n,
      29_981_130n,
    ]);
    expect([
      at('BTC', T0 + 60_000),
      at('ETH', T0 + 60_000),
      at('SOL', T0 + 60_000),
      at('XRP', T0 + 60_000),
      at('HYPE', T0 + 60_000),
    ]).toEqual([99_926_545_150n, 3_010_306_131n, 150_341_265n, 2_003_331n, 29_905_971n]);
  });

  it('one price per whole second; the seed and the spread change it; spread 0 is the base', () => {
    expect(demoPriceMicros('demo', 'BTC', T0 + 999, 50)).toBe(100_466_609_571n);
    expect(demoPriceMicros('other', 'BTC', T0, 50)).toBe(99_749_659_509n);
    expect(demoPriceMicros('demo', 'BTC', T0, 0)).toBe(100_000_000_000n);
    expect(demoPriceMicros('demo', 'XRP', T0, 1)).toBe(1_999_888n);
  });

  it('stays within base ± spread', () => {
    for (let i = 0; i < 500; i++) {
      const p = demoPriceMicros('demo', 'SOL', T0 + i * 1000, 50)!;
      expect(p >= 149_250_000n && p <= 150_750_000n).toBe(true);
    }
  });

  it('the feed answers the observation of that second, null before it happens or for an unknown asset', async () => {
    const feed = createDemoFeed({ seed: 'demo', spreadBps: 50, now: () => T0 + 30_000 });
    expect(feed.source).toBe('demo');
    expect(await feed.priceAt('ETH', T0 + 1500)).toEqual({
      priceMicros: demoPriceMicros('demo', 'ETH', T0 + 1000, 50),
      observedAtMs: T0 + 1000,
      sourceRef: `second:${(T0 + 1000) / 1000}`,
    });
    expect(await feed.priceAt('ETH', T0 + 30_001)).toBeNull();
    expect(await feed.priceAt('DOGE', T0)).toBeNull();
  });
});

describe('window outcome', () => {
  it('up (YES) only if close > open; a tie is down (NO)', () => {
    expect(windowOutcome(100n, 101n)).toBe('YES');
    expect(windowOutcome(100n, 100n)).toBe('NO');
    expect(windowOutcome(100n, 99n)).toBe('NO');
    // The 60 s windows starting at T0: ETH rose, BTC fell.
    expect(windowOutcome(demoPriceMicros('demo', 'ETH', T0, 50)!, demoPriceMicros('demo', 'ETH', T0 + 60_000, 50)!)).toBe('YES');
    expect(windowOutcome(demoPriceMicros('demo', 'BTC', T0, 50)!, demoPriceMicros('demo', 'BTC', T0 + 60_000, 50)!)).toBe('NO');
  });
});

describe('createPriceFeeds', () => {
  it('PRICE_FEED=demo gives the demo feed with the configured seed and spread', async () => {
    const settings = { ...loadConfig({ DEMO_PRICE_SEED: 'other' }).prices, sources: ['demo' as const] };
    const [feed] = createPriceFeeds(settings, { now: () => T0 });
    expect(feed!.source).toBe('demo');
    expect(await feed!.priceAt('BTC', T0)).toEqual({ priceMicros: 99_749_659_509n, observedAtMs: T0, sourceRef: `second:${T0 / 1000}` });
    // prices:verify looks the same second up again by its identifier.
    expect(await feed!.lookup!('BTC', `second:${T0 / 1000}`)).toEqual(await feed!.priceAt('BTC', T0));
    expect(await feed!.probe!(['BTC', 'DOGE'])).toEqual({ listed: ['BTC'], unlisted: ['DOGE'] });
  });
});
