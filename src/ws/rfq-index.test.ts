import { describe, expect, it } from 'vitest';
import { effectiveFilters, SubscriptionIndex } from './rfq-index.js';

const leg = (asset: string, duration_secs: number) => ({ asset, duration_secs });
const names = (s: Set<string>) => [...s].sort();

describe('SubscriptionIndex', () => {
  it('finds the connections whose filters match at least one leg (asset and duration of the same leg)', () => {
    const idx = new SubscriptionIndex<string>();
    idx.set('btc5', { assets: ['BTC'], durations: [300] });
    idx.set('eth15', { assets: ['ETH'], durations: [900] });
    idx.set('all', { assets: ['BTC', 'ETH'], durations: [300, 900] });
    expect(names(idx.forLegs([leg('BTC', 300)]))).toEqual(['all', 'btc5']);
    expect(names(idx.forLegs([leg('BTC', 900)]))).toEqual(['all']);
    expect(names(idx.forLegs([leg('BTC', 300), leg('ETH', 900)]))).toEqual(['all', 'btc5', 'eth15']);
    expect(names(idx.forLegs([leg('SOL', 300)]))).toEqual([]);
    expect(names(idx.forLegs([]))).toEqual([]);
  });

  it('a later set replaces the earlier filters; remove forgets the connection', () => {
    const idx = new SubscriptionIndex<string>();
    idx.set('a', { assets: ['BTC'], durations: [300] });
    idx.set('a', { assets: ['ETH'], durations: [300] });
    expect(names(idx.forLegs([leg('BTC', 300)]))).toEqual([]);
    expect(names(idx.forLegs([leg('ETH', 300)]))).toEqual(['a']);
    expect(idx.filtersOf('a')).toEqual({ assets: ['ETH'], durations: [300] });
    idx.remove('a');
    idx.remove('a'); // twice is fine
    expect(names(idx.forLegs([leg('ETH', 300)]))).toEqual([]);
    expect(idx.size).toBe(0);
    expect(idx.filtersOf('a')).toBeUndefined();
  });

  it('empty filters match nothing', () => {
    const idx = new SubscriptionIndex<string>();
    idx.set('none', { assets: [], durations: [300] });
    expect(idx.size).toBe(1);
    expect(names(idx.forLegs([leg('BTC', 300)]))).toEqual([]);
  });
});

describe('effectiveFilters', () => {
  const offered = { assets: ['BTC', 'ETH', 'SOL'], durations: [300, 900] };
  it('omitted lists mean everything the deployment offers', () => {
    expect(effectiveFilters({}, offered)).toEqual(offered);
  });
  it('keeps the deployment order and drops what it does not offer', () => {
    expect(effectiveFilters({ assets: ['SOL', 'DOGE', 'BTC'], durations: [900, 60] }, offered)).toEqual({
      assets: ['BTC', 'SOL'],
      durations: [900],
    });
    expect(effectiveFilters({ assets: [] }, offered)).toEqual({ assets: [], durations: [300, 900] });
  });
});
