// The price sources' repository sample calls for the SQL snapshots (src/queries/price-sources.sql).
import type { Db } from '../schema.js';
import { PriceSourcesRepository } from './price-sources.repository.js';

export const PRICES_CATALOG: Record<string, Array<[string, (db: Db) => Promise<unknown>]>> = {
  'price-sources': [
    [
      'PriceSourcesRepository.recordProbes',
      (db) =>
        new PriceSourcesRepository(db).recordProbes([
          { source: 'binance', state: 'blocked', reason: 'blocked', detail: 'HTTP 451', atMs: 1_700_000_000_000, listed: [], unlisted: [] },
          { source: 'pyth', state: 'ok', reason: null, detail: null, atMs: 1_700_000_000_000, listed: ['BTC', 'ETH'], unlisted: [] },
        ]),
    ],
    ['PriceSourcesRepository.circuit', (db) => new PriceSourcesRepository(db).circuit('okx')],
    ['PriceSourcesRepository.openCircuit', (db) => new PriceSourcesRepository(db).openCircuit('okx', 1_700_000_030_000, 'banned')],
    ['PriceSourcesRepository.observation', (db) => new PriceSourcesRepository(db).observation('pyth', 'BTC', 1_700_000_000_000)],
    [
      'PriceSourcesRepository.putObservation',
      (db) =>
        new PriceSourcesRepository(db).putObservation(
          'pyth',
          'BTC',
          1_700_000_000_000,
          { priceMicros: 97_000_000_000n, observedAtMs: 1_700_000_000_000, ref: 'update:1700000000', confidenceMicros: 25_000_000n },
          1_700_000_001_000,
        ),
    ],
    ['PriceSourcesRepository.pruneObservations', (db) => new PriceSourcesRepository(db).pruneObservations(1_699_913_600_000, 10_000)],
    ['PriceSourcesRepository.resolutionBacklog', (db) => new PriceSourcesRepository(db).resolutionBacklog(1_700_000_000_000)],
  ],
};
