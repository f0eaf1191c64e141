// The in-process market window cache: once a window's row exists, current/lookup run no SQL (the Em source is
// not even called); the first request still goes through the upsert and converges with concurrent creators.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Em } from '../../db/orm.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { getCurrentMarket, lookupMarket, WindowCache, type MarketSettings } from './markets.js';

const settings: MarketSettings = { assets: ['BTC', 'ETH'], durations: [300], bettingCloseBufferMs: 10_000, lookupHorizonMs: 86_400_000 };
const NOW = 1_900_000_000_000 + 42_000;

let m: MigratedOrm;
beforeAll(async () => {
  m = await migratedOrm('windowcache');
});
afterAll(async () => {
  await m?.close();
});

/** Counts how often the domain asks for an entity manager. */
function counting() {
  const source = Object.assign(
    () => {
      source.calls++;
      return m.orm.em.fork() as Em;
    },
    { calls: 0 },
  );
  return source;
}

describe('WindowCache', () => {
  it('creates the current window once, then answers current and lookup of it without touching the database', async () => {
    const cache = new WindowCache();
    const first = counting();
    const created = await getCurrentMarket(first, settings, 'BTC', 300, NOW, cache);
    expect(first.calls).toBeGreaterThan(0);
    const again = counting();
    expect(await getCurrentMarket(again, settings, 'BTC', 300, NOW + 1000, cache)).toEqual(created);
    expect(await lookupMarket(again, settings, 'BTC', 300, created.startAtMs, NOW, cache)).toEqual(created);
    expect(again.calls).toBe(0);
    // Another asset is another window: it goes to the database.
    const other = counting();
    const eth = await getCurrentMarket(other, settings, 'ETH', 300, NOW, cache);
    expect(other.calls).toBeGreaterThan(0);
    expect(eth.marketId).not.toBe(created.marketId);
  });

  it('concurrent first requests through separate caches converge on one market id (the upsert still arbitrates)', async () => {
    const at = NOW + 3 * 300_000;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => getCurrentMarket(counting(), settings, 'BTC', 300, at, new WindowCache())),
    );
    expect(new Set(results.map((r) => r.marketId)).size).toBe(1);
  });

  it('is bounded: a full cache starts over instead of growing', async () => {
    const cache = new WindowCache(2);
    for (let i = 0; i < 3; i++) await getCurrentMarket(counting(), settings, 'ETH', 300, NOW + (10 + i) * 300_000, cache);
    const source = counting();
    await getCurrentMarket(source, settings, 'ETH', 300, NOW + 10 * 300_000, cache); // evicted with the clear
    expect(source.calls).toBeGreaterThan(0);
  });
});
