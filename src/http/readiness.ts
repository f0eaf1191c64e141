// What the checks of /readyz ask (src/http/handlers/operations.ts decides which of them a role needs):
// migrations applied to this process's database, the database, the queue backend and the bus answering,
// a worker heartbeat that is recent and every job scheduler present; and, never failing, each price
// source's last success.
import type { Orm } from '../db/orm.js';
import { pendingMigrations } from '../db/orm.js';
import { systemRepository } from '../db/repositories/system.repository.js';
import { db } from '../db/schema.js';
import type { ProcessRole, ReadinessProbe } from './handlers/operations.js';
import { sourceHealth } from '../domain/prices/health.js';

export function readinessProbe(deps: {
  role: ProcessRole;
  orm: Orm;
  queue: { ping(): Promise<void> };
  bus: { ping(): Promise<void> };
  workers: Pick<ReadinessProbe, 'workers' | 'schedulers'>;
  /** PRICE_FEED: the sources whose health /readyz shows. */
  priceSources: readonly string[];
}): ReadinessProbe {
  let migrated = false; // once applied, migrations never become pending again in this process's lifetime
  return {
    role: deps.role,
    migrations: async () => {
      if (!migrated) migrated = (await pendingMigrations(deps.orm)).length === 0;
      return migrated ? 'ok' : 'pending';
    },
    database: async () => {
      await systemRepository(db(deps.orm.em.fork())).ping();
    },
    queue: () => deps.queue.ping(),
    bus: () => deps.bus.ping(),
    workers: () => deps.workers.workers(),
    schedulers: () => deps.workers.schedulers(),
    prices: async () => {
      const all = await sourceHealth(deps.orm.em.fork());
      return deps.priceSources.map((source) => all.find((h) => h.source === source) ?? { source, lastSuccessAtMs: null, lastFailureAtMs: null });
    },
  };
}
