// The three deployments of docs/reliability.md ("Deployments"), each started for real as `npm start` would:
// embedded (no DATABASE_URL, no REDIS_URL), PostgreSQL only, and PostgreSQL + Redis with the API and
// the workers in separate processes. In each, /healthz and /readyz answer and a job is processed.
import { rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from './testing/service-process.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix } from './testing/postgres.js';
import { embeddedDataDir } from './testing/embedded-template.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

function track(p: ServiceProcess): ServiceProcess {
  cleanups.push(() => p.stop('SIGKILL'));
  return p;
}

const heartbeat = (l: Record<string, unknown>) => l.msg === 'heartbeat recorded';

async function expectReady(baseUrl: string, role: 'all' | 'api' = 'all'): Promise<void> {
  const health = await fetch(`${baseUrl}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: 'ok' });
  // 200 at once; the workers' first heartbeat may land just after the API listens: `ready` within a few seconds.
  let ready = await fetch(`${baseUrl}/readyz`);
  let body = (await ready.json()) as { status: string };
  for (let i = 0; i < 40 && body.status !== 'ready'; i++) {
    expect(ready.status).toBe(200);
    await new Promise((r) => setTimeout(r, 250));
    ready = await fetch(`${baseUrl}/readyz`);
    body = (await ready.json()) as { status: string };
  }
  expect(ready.status).toBe(200);
  expect(body).toEqual({
    status: 'ready',
    role,
    checks: {
      database: 'ok',
      queue: 'ok',
      bus: 'ok',
      migrations: 'ok',
      workers: 'ok',
      schedulers: 'ok',
      prices: 'ok',
    },
    price_sources: [
      {
        source: 'demo',
        state: 'ok', // probed at start-up
        reason: null,
        fix: null,
        retry_at_ms: null,
        checked_at_ms: expect.any(Number),
        last_success_at_ms: expect.toBeOneOf([null, expect.any(Number)]),
        last_failure_at_ms: null,
      },
    ],
    signature_backend: 'libsecp256k1',
  });
}

describe('embedded deployment (no DATABASE_URL, no REDIS_URL)', () => {
  it('serves, processes a job on PGlite, refuses a second process on the same DATA_DIR, and stops cleanly', async () => {
    const dataDir = embeddedDataDir('crfq-embedded-');
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', QUEUE_PREFIX: uniquePrefix('emb') };
    const svc = track(await startServiceProcess({ env }));
    await expectReady(svc.baseUrl);
    expect(svc.logs.find((l) => l.msg === 'runtime ready')).toMatchObject({ deployment: 'embedded', queue_backend: 'pglite' });
    await svc.waitForLog(heartbeat, 30_000);

    const second = startServiceProcess({ env: { ...env, LOG_LEVEL: 'info' }, timeoutMs: 30_000 });
    await expect(second).rejects.toThrow(/is in use by process \d+/);

    expect(await svc.stop('SIGTERM')).toBe(0);
    expect(svc.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'workers stopped', 'stopped']));
    expect(existsSync(join(dataDir, 'service.lock'))).toBe(false);

    // Data survive a restart: the heartbeat row written before is still there, and migrations do not rerun.
    const again = track(await startServiceProcess({ env }));
    await expectReady(again.baseUrl);
    expect(again.logs.some((l) => l.msg === 'database migrations applied')).toBe(false);
    expect(await again.stop('SIGTERM')).toBe(0);
  }, 120_000); // three PGlite start-ups: slow on a loaded 2-core machine
});

describe('PostgreSQL-only deployment (DATABASE_URL, no REDIS_URL)', () => {
  it('runs BullMQ on the PostgreSQL backend of the same database', async () => {
    const db = await createTestDatabase('pgonly');
    cleanups.push(() => db.drop());
    const svc = track(
      await startServiceProcess({
        env: { DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'debug', QUEUE_PREFIX: uniquePrefix('pg') },
      }),
    );
    await expectReady(svc.baseUrl);
    expect(svc.logs.find((l) => l.msg === 'runtime ready')).toMatchObject({ deployment: 'postgres', queue_backend: 'postgres' });
    await svc.waitForLog(heartbeat, 30_000);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query("select count(*)::int as n from information_schema.tables where table_schema = 'bullmq'");
      expect(rows[0].n).toBeGreaterThan(0);
      const beats = await c.query('select jobs_processed from worker_heartbeats');
      expect(beats.rowCount).toBe(1);
    } finally {
      await c.end();
    }
    expect(await svc.stop('SIGTERM')).toBe(0);
  });
});

describe('production deployment (DATABASE_URL + REDIS_URL), API and workers as separate processes', () => {
  it('two API processes and two worker processes share one database and one Redis', async () => {
    const db = await createTestDatabase('prod', undefined, { empty: true }); // the processes race to migrate it
    cleanups.push(() => db.drop());
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      QUEUE_PREFIX: uniquePrefix('prod'),
    };
    // Start two API processes at once: migrations are serialised by an advisory lock.
    const [api1, api2] = (
      await Promise.all([startServiceProcess({ env, args: ['--role=api'] }), startServiceProcess({ env, args: ['--role=api'] })])
    ).map(track);
    const workersReady = (l: Record<string, unknown>) => l.msg === 'workers started';
    const [w1, w2] = (
      await Promise.all([
        startServiceProcess({ env, args: ['--role=workers'], readyWhen: workersReady }),
        startServiceProcess({ env, args: ['--role=workers'], readyWhen: workersReady }),
      ])
    ).map(track);
    for (const api of [api1!, api2!]) {
      await expectReady(api.baseUrl, 'api');
      expect(api.logs.some((l) => l.msg === 'workers started')).toBe(false);
    }
    // The scheduler's heartbeat jobs are taken by the worker processes, never by the API processes.
    await Promise.race([w1!.waitForLog(heartbeat, 30_000), w2!.waitForLog(heartbeat, 30_000)]);
    expect(api1!.logs.some(heartbeat) || api2!.logs.some(heartbeat)).toBe(false);
    expect(await Promise.all([api1!, api2!, w1!, w2!].map((p) => p.stop('SIGTERM')))).toEqual([0, 0, 0, 0]);
  });
});

describe('start-up refuses a bad configuration', () => {
  it('lists every bad setting and exits 78', async () => {
    const p = startServiceProcess({ env: { PORT: 'x', MM_AUTH_DOMAIN: 'short', MARKET_ASSETS: 'btc' }, timeoutMs: 20_000 });
    const err = await p.then(
      () => new Error('started'),
      (e: Error) => e,
    );
    expect(err.message).toMatch(/exited \(78\)/);
    expect(err.message).toMatch(/PORT/);
    expect(err.message).toMatch(/MM_AUTH_DOMAIN/);
    expect(err.message).toMatch(/MARKET_ASSETS/);
  });
});
