// Picks the bus backend like the queue backend: Redis with REDIS_URL, PostgreSQL LISTEN/NOTIFY with only
// DATABASE_URL, in-process on the embedded default. Apart from bus.ts so that the backends, which build on
// bus.ts's hub, are not imported by it (no import circle).
import type { Bus, BusOptions } from './bus.js';
import { createLocalBus } from './local.js';
import { createPgBus } from './pg.js';
import { createRedisBus } from './redis.js';

export async function createBus(opts: BusOptions): Promise<Bus> {
  if (opts.redisUrl) return createRedisBus({ ...opts, redisUrl: opts.redisUrl });
  if (opts.databaseUrl) return createPgBus({ ...opts, databaseUrl: opts.databaseUrl, listenUrl: opts.listenUrl });
  return createLocalBus(opts);
}
