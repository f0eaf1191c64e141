// The page cache's rules with a hand-driven clock: TTL from the load's start, clock boundaries, invalidation
// by contest and globally, a load that raced an invalidation, shared loads, the size bound, errors.
import { describe, expect, it } from 'vitest';
import { CROSS_CONTEST, PageCache } from './page-cache.js';

function setup(ttlMs = 1000, maxPages?: number) {
  let now = 1_000_000;
  const cache = new PageCache({ ttlMs, maxPages, now: () => now });
  let loads = 0;
  const load = (value: string, expiresAtMs?: number) => async () => {
    loads++;
    return { value, expiresAtMs };
  };
  return { cache, load, loads: () => loads, tick: (ms: number) => (now += ms), at: () => now };
}

/** A load that resolves when told to. */
function gate<T>(value: T) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, load: async () => (await opened, { value }) };
}

describe('PageCache', () => {
  it('serves a page until its TTL, counted from the start of its load, then loads again', async () => {
    const { cache, load, loads, tick } = setup(1000);
    expect(await cache.read('k', 'c1', load('a'))).toBe('a');
    tick(999);
    expect(await cache.read('k', 'c1', load('b'))).toBe('a');
    tick(1);
    expect(await cache.read('k', 'c1', load('b'))).toBe('b');
    expect(loads()).toBe(2);
  });

  it('never serves a page at or past the clock boundary its loader gave', async () => {
    const { cache, load, tick, at } = setup(1000);
    expect(await cache.read('k', 'c1', load('hidden', at() + 300))).toBe('hidden');
    tick(299);
    expect(await cache.read('k', 'c1', load('shown'))).toBe('hidden');
    tick(1);
    expect(await cache.read('k', 'c1', load('shown'))).toBe('shown');
  });

  it('drops the pages of the changed contest and the cross-contest pages; null drops all', async () => {
    const { cache, load } = setup();
    await cache.read('c1', 'c1', load('c1'));
    await cache.read('c2', 'c2', load('c2'));
    await cache.read('lobby', CROSS_CONTEST, load('lobby'));
    cache.invalidate('c1');
    expect(await cache.read('c1', 'c1', load('c1 new'))).toBe('c1 new');
    expect(await cache.read('c2', 'c2', load('c2 new'))).toBe('c2');
    expect(await cache.read('lobby', CROSS_CONTEST, load('lobby new'))).toBe('lobby new');
    cache.invalidate(null);
    expect(await cache.read('c2', 'c2', load('c2 newer'))).toBe('c2 newer');
  });

  it('a load that started before an invalidation is not stored, nor shared with a read that came after it', async () => {
    const { cache, load } = setup();
    const before = gate('pre-write');
    const first = cache.read('k', 'c1', before.load);
    cache.invalidate('c1'); // the write committed meanwhile
    const after = cache.read('k', 'c1', load('post-write'));
    before.open();
    expect(await first).toBe('pre-write');
    expect(await after).toBe('post-write');
    expect(await cache.read('k', 'c1', load('unused'))).toBe('post-write');
  });

  it('concurrent misses share one load', async () => {
    const { cache } = setup();
    const g = gate('v');
    let calls = 0;
    const counted = async () => (calls++, g.load());
    const reads = [cache.read('k', 'c1', counted), cache.read('k', 'c1', counted), cache.read('k', 'c1', counted)];
    g.open();
    expect(await Promise.all(reads)).toEqual(['v', 'v', 'v']);
    expect(calls).toBe(1);
  });

  it('keeps at most maxPages pages, dropping the oldest', async () => {
    const { cache, load, loads } = setup(1000, 2);
    await cache.read('a', 'c1', load('a'));
    await cache.read('b', 'c1', load('b'));
    await cache.read('c', 'c1', load('c'));
    expect(cache.size).toBe(2);
    await cache.read('b', 'c1', load('b2'));
    await cache.read('c', 'c1', load('c2'));
    expect(loads()).toBe(3);
    expect(await cache.read('a', 'c1', load('a2'))).toBe('a2');
  });

  it('does not cache errors', async () => {
    const { cache, load } = setup();
    await expect(cache.read('k', 'c1', () => Promise.reject(new Error('not found')))).rejects.toThrow('not found');
    expect(await cache.read('k', 'c1', load('found'))).toBe('found');
  });

  it('with a TTL of 0 every read loads', async () => {
    const { cache, load, loads } = setup(0);
    await cache.read('k', 'c1', load('a'));
    await cache.read('k', 'c1', load('b'));
    expect(loads()).toBe(2);
  });
});
