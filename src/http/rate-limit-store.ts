// Where express-rate-limit keeps its counters, so that N API processes allow the limit once, not N times:
//   REDIS_URL set (production)  -> Redis (rate-limit-redis), keys under `<QUEUE_PREFIX>:rl:`
//   DATABASE_URL only           -> PostgreSQL: one UPSERT per request on rate_limit_counters (fixed window)
//   embedded (one process)      -> in-process memory (express-rate-limit's default)
// When the shared store does not answer within STORE_DEADLINE_MS, that request is counted in memory
// instead (a per-process limit, logged): an outage of the store never blocks or fails a request.
import { MemoryStore, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { Redis } from 'ioredis';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { withDeadline } from '../jobs/queue-gate.js';
import { repos } from '../db/repos.js';

const STORE_DEADLINE_MS = 500;

export interface SharedRateLimitStore {
  store: Store | undefined;
  kind: 'redis' | 'postgres' | 'memory';
  close(): Promise<void>;
}

export interface RateLimitStoreOptions {
  deployment: 'embedded' | 'postgres' | 'production';
  redisUrl: string | undefined;
  prefix: string;
  orm: Orm;
  log: Logger;
}

export function createRateLimitStore(opts: RateLimitStoreOptions): SharedRateLimitStore {
  if (opts.deployment === 'production' && opts.redisUrl) {
    // A connection of its own: fail fast (one retry) instead of BullMQ's wait-forever settings.
    const redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
    redis.on('error', () => undefined);
    const primary = new RedisStore({
      sendCommand: (...args: string[]) => redis.call(args[0]!, ...args.slice(1)) as Promise<never>,
      prefix: `${opts.prefix}:rl:`,
    });
    return { store: new FallbackStore(primary, 'redis', opts.log), kind: 'redis', close: async () => void redis.disconnect() };
  }
  if (opts.deployment === 'postgres') {
    return { store: new FallbackStore(new PostgresStore(opts.orm), 'postgres', opts.log), kind: 'postgres', close: async () => undefined };
  }
  return { store: undefined, kind: 'memory', close: async () => undefined };
}

/** Fixed-window counters in rate_limit_counters (Migration20261123030000_shared_limits). */
export class PostgresStore implements Store {
  private windowMs = 60_000;
  constructor(private readonly orm: Orm) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<IncrementResponse> {
    // Decided in SQL (SharedLimitsRepository.incrementCounter, one UPSERT): the fixed window, a window that has
    // ended starting again at 1; express-rate-limit compares the hits with the limit.
    const { hits, resetAt } = await this.repo().incrementCounter(key, this.windowMs);
    return { totalHits: hits, resetTime: resetAt };
  }

  async decrement(key: string): Promise<void> {
    await this.repo().decrementCounter(key);
  }

  async resetKey(key: string): Promise<void> {
    await this.repo().deleteCounter(key);
  }

  private repo() {
    return repos(this.orm.em.fork()).sharedLimits;
  }
}

/** The shared store, or in-process memory while it fails or is slow. */
export class FallbackStore implements Store {
  private readonly memory = new MemoryStore();
  private options: Options | undefined;
  private lastWarnMs = 0;
  constructor(
    private readonly primary: Store,
    private readonly name: string,
    private readonly log: Logger,
  ) {}

  init(options: Options): void {
    this.options = options;
    this.memory.init(options);
    void Promise.resolve(this.primary.init?.(options)).catch(() => undefined);
  }

  async increment(key: string): Promise<IncrementResponse> {
    try {
      return await withDeadline(Promise.resolve(this.primary.increment(key)), STORE_DEADLINE_MS, `${this.name} rate-limit store`);
    } catch (err) {
      this.degraded(err);
      return this.memory.increment(key);
    }
  }

  async decrement(key: string): Promise<void> {
    await withDeadline(Promise.resolve(this.primary.decrement(key)), STORE_DEADLINE_MS, 'decrement').catch(() =>
      this.memory.decrement(key),
    );
  }

  async resetKey(key: string): Promise<void> {
    await withDeadline(Promise.resolve(this.primary.resetKey(key)), STORE_DEADLINE_MS, 'resetKey').catch(() => undefined);
    this.memory.resetKey(key);
  }

  shutdown(): void {
    this.memory.shutdown();
  }

  private degraded(err: unknown): void {
    const now = Date.now();
    if (now - this.lastWarnMs > 10_000) {
      this.lastWarnMs = now;
      this.log.warn({ err, store: this.name }, 'rate-limit store unavailable: counting in this process until it answers');
      // rate-limit-redis keeps the SHA of its script from init(): load it again (Redis may have restarted).
      if (this.options) void Promise.resolve(this.primary.init?.(this.options)).catch(() => undefined);
    }
  }
}
