// Chooses BullMQ's backend from configuration; processors and producers never know which one runs.
//   REDIS_URL set          -> Redis (production)
//   DATABASE_URL only      -> BullMQ's PostgreSQL backend on the service's own database
//   neither (embedded)     -> BullMQ's PostgreSQL backend on the in-process PGlite instance
import pg from 'pg';
import { Redis } from 'ioredis';
import type { PGlite } from '@electric-sql/pglite';
import { Queue, Worker, QueueEvents, withBackend, createPostgresBackend, runMigrations, type PgPool } from 'bullmq';
import { BULLMQ_SCHEMA } from '../db/bullmq-schema.js';
import { PglitePool } from './pglite-pool.js';

type Classes = { Queue: typeof Queue; Worker: typeof Worker; QueueEvents: typeof QueueEvents };

export interface QueueBackend {
  readonly kind: 'redis' | 'postgres' | 'pglite';
  readonly Queue: Classes['Queue'];
  readonly Worker: Classes['Worker'];
  readonly QueueEvents: Classes['QueueEvents'];
  /** Connection option to hand to every Queue/Worker/QueueEvents. */
  readonly connection: never;
  /** Full queue name: QUEUE_PREFIX + '_' + noun, so test runs and deployments can share one server. */
  queueName(noun: string): string;
  /** Resolves when the backend answers a trivial query; throws otherwise. */
  ping(): Promise<void>;
  /**
   * true once the backend is connected, waiting at most `ms` for it. Redis only: the SQL backends answer
   * true at once (their outage is the database's, which every request meets anyway).
   */
  waitAvailable(ms: number): Promise<boolean>;
  /** Calls `fn` whenever the connection comes back after a loss (Redis 'ready' after a reconnect). */
  onReconnect(fn: () => void): void;
  close(): Promise<void>;
}

export interface QueueBackendOptions {
  prefix: string;
  redisUrl?: string | undefined;
  databaseUrl?: string | undefined;
  pglite?: PGlite | undefined;
}

export async function createQueueBackend(opts: QueueBackendOptions): Promise<QueueBackend> {
  const queueName = (noun: string) => `${opts.prefix}_${noun}`;
  return opts.redisUrl ? redisBackend(opts.redisUrl, queueName) : sqlBackend(opts, queueName);
}

function redisBackend(redisUrl: string, queueName: (noun: string) => string): QueueBackend {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
  redis.on('error', () => {
    /* surfaced by ping() and by BullMQ's own retries; an unhandled 'error' event would crash the process */
  });
  let everReady = redis.status === 'ready';
  const reconnectListeners: Array<() => void> = [];
  redis.on('ready', () => {
    if (everReady) for (const fn of reconnectListeners) fn();
    everReady = true;
  });
  return {
    kind: 'redis',
    Queue,
    Worker,
    QueueEvents,
    connection: redis as never,
    queueName,
    async ping() {
      if ((await redis.ping()) !== 'PONG') throw new Error('redis did not answer PONG');
    },
    waitAvailable: (ms) => waitForReady(redis, ms),
    onReconnect(fn) {
      reconnectListeners.push(fn);
    },
    async close() {
      redis.disconnect();
    },
  };
}

/** BullMQ's PostgreSQL backend on DATABASE_URL, or on the in-process PGlite instance; its schema migrated first. */
async function sqlBackend(opts: QueueBackendOptions, queueName: (noun: string) => string): Promise<QueueBackend> {
  const { pool, endPool, kind } = sqlPool(opts);
  // Every Queue/Worker on the pool adds its listeners (schedulers, readiness and processors: a few dozen).
  (pool as unknown as { setMaxListeners?: (n: number) => void }).setMaxListeners?.(100);
  // A pool we pass in is not migrated by BullMQ; run its schema migrations (advisory-locked, idempotent).
  const client = await pool.connect();
  try {
    await runMigrations(client, BULLMQ_SCHEMA);
  } finally {
    client.release();
  }
  const classes = withBackend(createPostgresBackend) as unknown as Classes;
  return {
    kind,
    ...classes,
    connection: pool as never,
    queueName,
    async ping() {
      await pool.query('SELECT 1 FROM migration LIMIT 1');
    },
    waitAvailable: async () => true,
    onReconnect() {
      /* the pool reconnects per query; schedulers live in tables that survive a restart */
    },
    async close() {
      await endPool();
    },
  };
}

function sqlPool(opts: QueueBackendOptions): { pool: PgPool; endPool: () => Promise<void>; kind: 'postgres' | 'pglite' } {
  if (opts.databaseUrl) {
    const real = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 10,
      options: `-c search_path=${BULLMQ_SCHEMA}`,
      keepAlive: true,
    });
    real.on('error', () => {
      /* idle client errors: pg reconnects on next checkout */
    });
    return { pool: real as unknown as PgPool, endPool: () => real.end(), kind: 'postgres' };
  }
  if (opts.pglite) {
    const p = new PglitePool(opts.pglite, BULLMQ_SCHEMA);
    return { pool: p, endPool: () => p.end(), kind: 'pglite' };
  }
  throw new Error('createQueueBackend needs redisUrl, databaseUrl or a PGlite instance');
}

function waitForReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
  });
}
