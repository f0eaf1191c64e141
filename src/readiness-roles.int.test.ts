// Readiness per role (issue 24 #1): /readyz says whether THIS process can serve its role, so processes
// become ready in any start order and a worker outage never takes an API out of rotation; the
// whole-system view is GET /v1/admin/status and the crfq_* gauges of /metrics.
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from './testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from './testing/service-process.js';

const procs: ServiceProcess[] = [];
const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const p of procs) await p.stop('SIGKILL').catch(() => undefined);
  for (const d of dbs) await d.drop().catch(() => undefined);
});

type Ready = {
  status: number;
  body: { status?: string; role?: string; checks?: Record<string, string>; details?: { checks: Record<string, string> } };
};
const readyz = async (baseUrl: string): Promise<Ready> => {
  const res = await fetch(`${baseUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Ready['body'] };
};

/** Polls `fn` every 200 ms until it returns a value (bounded by a count, not by a clock assertion). */
async function until<T>(what: string, fn: () => Promise<T | undefined>, tries = 150): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not seen after ${tries} tries`);
}

async function deployment(label: string, extra: Record<string, string> = {}) {
  const db = await createTestDatabase(label);
  dbs.push(db);
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniquePrefix(label),
    NODE_ENV: 'test',
    OPERATOR_TOKEN: `${label}-operator-token-0123456789`,
    ...extra,
  };
  const start = async (role: 'api' | 'workers') => {
    const p = await startServiceProcess({ env, args: [`--role=${role}`] });
    procs.push(p);
    return p;
  };
  return { env, start };
}

describe('readiness per role', () => {
  it('workers first, then the API: each is ready as soon as it can serve its role', async () => {
    const d = await deployment('rdywf');
    const workers = await d.start('workers');
    const w = await readyz(workers.baseUrl);
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({ role: 'workers', checks: { database: 'ok', queue: 'ok', migrations: 'ok' } });
    expect((await fetch(`${workers.baseUrl}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${workers.baseUrl}/metrics`)).text()).toMatch(/^process_cpu_user_seconds_total/m);
    const other = await fetch(`${workers.baseUrl}/v1/contests`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'NOT_FOUND' });

    const api = await d.start('api');
    const a = await until('API ready', async () => {
      const r = await readyz(api.baseUrl);
      expect(r.status).toBe(200); // never out of rotation while the first heartbeat is on its way
      return r.body.status === 'ready' ? r : undefined;
    });
    expect(a.body).toEqual({
      status: 'ready',
      role: 'api',
      // The workers may have resolved a window already: the demo source then has its first success.
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
  }, 120_000);

  it('the API first: 200 degraded (workers and schedulers missing) at once, ready once workers run; workers killed: still 200, workers stale', async () => {
    const d = await deployment('rdyaf', { WORKER_HEARTBEAT_STALE_MS: '2000' });
    const api = await d.start('api');
    const first = await readyz(api.baseUrl);
    expect(first).toEqual({
      status: 200,
      body: {
        status: 'degraded',
        role: 'api',
        checks: { database: 'ok', queue: 'ok', bus: 'ok', migrations: 'ok', workers: 'missing', schedulers: 'missing', prices: 'ok' },
        price_sources: [
          {
            source: 'demo',
            state: 'ok', // the API probed it at start-up
            reason: null,
            fix: null,
            retry_at_ms: null,
            checked_at_ms: expect.any(Number),
            last_success_at_ms: null,
            last_failure_at_ms: null,
          },
        ],
        signature_backend: 'libsecp256k1',
      },
    });
    const workers = await d.start('workers');
    await until('API ready once the workers run', async () => ((await readyz(api.baseUrl)).body.status === 'ready' ? true : undefined));

    await workers.stop('SIGKILL');
    const stale = await until('workers stale', async () => {
      const r = await readyz(api.baseUrl);
      expect(r.status).toBe(200);
      return r.body.checks?.workers === 'stale' ? r : undefined;
    });
    expect(stale.body).toMatchObject({
      status: 'degraded',
      role: 'api',
      checks: { database: 'ok', queue: 'ok', bus: 'ok', workers: 'stale' },
    });

    // The operator's view names the dead process; the gauges say no worker is alive.
    const auth = { authorization: `Bearer ${d.env.OPERATOR_TOKEN}` };
    const res = await fetch(`${api.baseUrl}/v1/admin/status`, { headers: auth });
    expect(res.status).toBe(200);
    const status = (await res.json()) as {
      status: string;
      workers: { state: string; alive: number; processes: Array<{ pid: number; state: string }> };
      dependencies: Record<string, string>;
      schedulers: Array<{ id: string; state: string }>;
      components: Array<{ name: string; kind: string; state: string }>;
    };
    expect(status).toMatchObject({
      status: 'degraded',
      dependencies: { database: 'ok', queue: 'ok', bus: 'ok' },
      workers: { state: 'stale', alive: 0 },
    });
    expect(status.workers.processes).toEqual([expect.objectContaining({ pid: workers.proc.pid, state: 'stale' })]);
    expect(status.schedulers.every((s) => s.state === 'ok')).toBe(true); // schedulers live in Redis, not in the worker
    expect(status.components).toEqual([{ name: 'demo', kind: 'price_source', state: 'ok', detail: null }]);
    expect((await fetch(`${api.baseUrl}/v1/admin/status`)).status).toBe(401);
    const metrics = await (await fetch(`${api.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^crfq_workers_alive 0$/m);
    expect(metrics).toMatch(/^crfq_dependency_up\{dependency="database"\} 1$/m);
    expect(metrics).toMatch(/^crfq_scheduler_present\{scheduler="heartbeat"\} 1$/m);
    expect(metrics).toMatch(/^crfq_component_up\{component="demo",kind="price_source"\} 1$/m);
    expect(metrics).toMatch(/^crfq_queue_jobs\{queue="settlement",state="waiting"\} \d+$/m);
    const age = Number(/^crfq_worker_heartbeat_age_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(age).toBeGreaterThan(2);
  }, 120_000);
});
