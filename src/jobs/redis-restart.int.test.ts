// Issue 15 #2: Redis restarted EMPTY loses every BullMQ job scheduler. The workers re-create them when the
// connection returns, and /readyz says so meanwhile; it also reports workers that stopped beating.
// A private redis-server on a free port (never the shared one), the real API and workers processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import { createTestDatabase, uniquePrefix, type TestDatabase } from '../testing/postgres.js';
import { startPrivateRedis, type PrivateRedis } from '../testing/private-servers.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { SCHEDULERS } from './schedulers.js';

let redis: PrivateRedis;
let db: TestDatabase;
const procs: ServiceProcess[] = [];

beforeAll(async () => {
  redis = await startPrivateRedis();
  db = await createTestDatabase('redisrestart');
});
afterAll(async () => {
  for (const p of procs) await p.stop('SIGKILL').catch(() => undefined);
  await redis?.destroy();
  await db?.drop();
});

const readyz = async (baseUrl: string) => {
  const res = await fetch(`${baseUrl}/readyz`);
  const body = (await res.json()) as { checks?: Record<string, string>; details?: { checks: Record<string, string> } };
  return { status: res.status, checks: body.checks ?? body.details?.checks, retryAfter: res.headers.get('retry-after') };
};

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('Redis restarted empty', () => {
  it('readiness names missing workers and schedulers; the workers re-create the schedulers when Redis returns empty', async () => {
    const prefix = uniquePrefix('rr');
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: prefix,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      WORKER_HEARTBEAT_STALE_MS: '25000',
    };
    const api = await startServiceProcess({ env, args: ['--role=api'] });
    procs.push(api);
    // No worker ever ran: the API serves (200) and its checks say what is missing.
    const before = await readyz(api.baseUrl);
    expect(before.status).toBe(200);
    expect(before.checks).toMatchObject({ database: 'ok', queue: 'ok', migrations: 'ok', workers: 'missing', schedulers: 'missing' });

    const workers = await startServiceProcess({ env, args: ['--role=workers'], readyWhen: (l) => l.msg === 'workers started' });
    procs.push(workers);
    expect(await until('ready', async () => ((await readyz(api.baseUrl)).checks?.workers === 'ok' ? true : undefined), 10_000)).toBe(true);

    // Redis dies and comes back with nothing: no scheduler, no delayed job.
    await redis.kill();
    await redis.start({ empty: true });
    // The workers notice the reconnect and re-create every scheduler; the heartbeat beats again.
    await until('schedulers re-created', async () => ((await readyz(api.baseUrl)).checks?.schedulers === 'ok' ? true : undefined), 15_000);
    const restartedAt = Date.now();
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      await until(
        'a heartbeat after the restart',
        async () => {
          const { rows } = await sql.query('select last_seen_at from worker_heartbeats order by last_seen_at desc limit 1');
          return rows[0] && (rows[0].last_seen_at as Date).getTime() >= restartedAt - 1000 ? true : undefined;
        },
        15_000,
      );
    } finally {
      await sql.end();
    }
    expect(workers.logs.some((l) => l.msg === 'job schedulers were missing and have been re-created')).toBe(true);
    // Ready again once the API's bus has reconnected to the new Redis too (readiness checks it since the bus exists).
    const after = await until(
      'ready after the restart',
      async () => {
        const r = await readyz(api.baseUrl);
        // every check ok (the price sources stay `unknown` until a window resolves)
        return r.status === 200 && Object.entries(r.checks ?? {}).every(([k, v]) => v === 'ok' || (k === 'prices' && v === 'unknown'))
          ? r
          : undefined;
      },
      15_000,
    );
    expect(after).toMatchObject({ status: 200, checks: { workers: 'ok', schedulers: 'ok', queue: 'ok', bus: 'ok' } });
    const client = new Redis(redis.url);
    try {
      for (const s of SCHEDULERS) expect(await client.exists(`bull:${prefix}_${s.queue}:repeat:${s.id}`), s.id).toBe(1);
    } finally {
      client.disconnect();
    }
  }, 90_000);

  it('readiness reports a stale heartbeat', async () => {
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    const prefix = uniquePrefix('rs');
    try {
      const env = { DATABASE_URL: db.url, REDIS_URL: redis.url, QUEUE_PREFIX: prefix, NODE_ENV: 'test', WORKER_HEARTBEAT_STALE_MS: '5000' };
      // Kill the workers of the first test: their heartbeat row gets old.
      for (const p of procs) await p.stop('SIGKILL');
      await sql.query("update worker_heartbeats set last_seen_at = now() - interval '1 minute'");
      const api = await startServiceProcess({ env, args: ['--role=api'] });
      procs.push(api);
      const r = await readyz(api.baseUrl);
      expect(r.status).toBe(200); // a worker outage degrades the API's readiness, it does not take it out of rotation
      expect(r.checks).toMatchObject({ workers: 'stale', database: 'ok', queue: 'ok' });
    } finally {
      await sql.end();
    }
  }, 60_000);
});
