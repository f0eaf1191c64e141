// What the checks of /readyz ask (src/http/handlers/operations.ts decides which of them a role needs):
// migrations applied to this process's database, the database, the queue backend and the bus answering,
// a worker heartbeat that is recent and every job scheduler present; and, never failing, each price
// source's state (its probes and circuit: src/domain/prices/health.ts).
import type { Orm } from '../db/orm.js';
import { pendingMigrations } from '../db/orm.js';
import type { ProcessRole, ReadinessProbe } from './handlers/operations.js';
import { sourceStatuses } from '../domain/prices/health.js';
import { repos } from '../db/repos.js';

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
      await repos(deps.orm.em.fork()).system.ping();
    },
    queue: () => deps.queue.ping(),
    bus: () => deps.bus.ping(),
    workers: () => deps.workers.workers(),
    schedulers: () => deps.workers.schedulers(),
    prices: () => sourceStatuses(deps.orm.em.fork(), deps.priceSources, Date.now()),
  };
}
