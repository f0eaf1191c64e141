// What "ready" means for an API process: migrations applied here, the database answering, the queue
// backend and the bus answering, a worker heartbeat that is recent and every job scheduler present (checked with a
// timeout each by the getReadiness handler); and, never failing, each price source's last success.
import type { Em } from '../db/orm.js';
import type { ReadinessProbe } from './handlers/operations.js';
import { sourceHealth } from '../domain/prices/health.js';

export function readinessProbe(deps: {
  forkDb: () => Em;
  queue: { ping(): Promise<void> };
  bus: { ping(): Promise<void> };
  migrationsApplied: () => boolean;
  workers: Pick<ReadinessProbe, 'workers' | 'schedulers'>;
  /** PRICE_FEED: the sources whose health /readyz shows. */
  priceSources: readonly string[];
}): ReadinessProbe {
  return {
    migrations: deps.migrationsApplied,
    database: async () => {
      await deps.forkDb().getConnection().execute('select 1');
    },
    queue: () => deps.queue.ping(),
    bus: () => deps.bus.ping(),
    workers: () => deps.workers.workers(),
    schedulers: () => deps.workers.schedulers(),
    prices: async () => {
      const all = await sourceHealth(deps.forkDb());
      return deps.priceSources.map((source) => all.find((h) => h.source === source) ?? { source, lastSuccessAtMs: null, lastFailureAtMs: null });
    },
  };
}
