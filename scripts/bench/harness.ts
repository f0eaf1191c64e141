// What the benches share: the real service on its own database and queue prefix (PostgreSQL + Redis, as the
// tests run it), percentiles, a bounded-concurrency pool, a per-operation rate and aligned table rows.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../../src/testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../../src/testing/service-process.js';

/**
 * Settings the bench's own environment passes to every service process it starts, to compare runs side by side:
 * BENCH_NODE_OPTIONS (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the service), and the service's own
 * DATABASE_PREPARED_STATEMENTS (0: without named statements).
 */
/** The EIP-712 domain salt of the benches' production-mode services (production requires one of its own). */
export const BENCH_EIP712_SALT = `0x${'be'.repeat(32)}`;

export const passedThroughEnv = (): Record<string, string | undefined> => ({
  // The deployed pool size (src/testing/service-process.ts gives test processes 5 so that a test run's dozens fit).
  DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? '10',
  NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS,
  DATABASE_PREPARED_STATEMENTS: process.env.DATABASE_PREPARED_STATEMENTS,
});

export interface BenchService {
  db: TestDatabase;
  svc: ServiceProcess;
  /** Stops the service and drops its database. */
  stop(): Promise<void>;
}

/**
 * Creates a database named after `name`, then boots the service on it (port 0) with Redis, its own queue
 * prefix and no rate limit. LOG_LEVEL stays info: the helper reads the port from the "listening" line.
 */
export async function startBenchService(name: string, env: Record<string, string | undefined> = {}): Promise<BenchService> {
  const db = await createTestDatabase(name);
  try {
    const svc = await startServiceProcess({
      env: {
        LOG_LEVEL: 'info',
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: uniquePrefix(name),
        RATE_LIMIT_PER_MINUTE: '0',
        MIGRATE_ON_START: 'true', // a fresh database, also when a bench runs NODE_ENV=production
        ...passedThroughEnv(),
        ...env,
      },
    });
    return { db, svc, stop: async () => (await svc.stop(), await db.drop()) };
  } catch (err) {
    await db.drop();
    throw err;
  }
}

/** Nearest-rank percentile `p` (0..100) of ascending `sorted`. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** Runs fn(0..n-1) with at most `concurrency` at once; results in index order. */
export async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

/** One table row: each cell padded to its width (negative width: left-aligned), joined by spaces. */
export const row = (cells: ReadonlyArray<readonly [string | number, number]>): string =>
  cells.map(([v, w]) => (w < 0 ? String(v).padEnd(-w) : String(v).padStart(w))).join(' ');

/** Resident set of a process in KiB, as the kernel counts it (/proc/<pid>/status, VmRSS; Linux only). */
export const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** The host's 1, 5 and 15 minute load averages, "1.23 0.50 0.23": printed with every figure (a 2-core box is shared). */
export const loadAverage = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
