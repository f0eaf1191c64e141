// Operations that are built, called through the generated client with every response checked.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { getHealth, getMetrics, getReadiness } from '../generated/openapi/sdk.gen.ts';
import { createOrm } from '../src/db/orm.js';
import { recordSourceHealth } from '../src/domain/prices/health.js';
import { startContractService, type ContractService } from './harness.ts';

let svc: ContractService;

beforeAll(async () => {
  svc = await startContractService('operations');
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

describe('operations', () => {
  it('getHealth: 200 {status: ok}', async () => {
    const api = svc.client();
    const { data } = await api.run(getHealth({ client: api.client }), { status: 200 });
    expect(data).toEqual({ status: 'ok' });
  });

  it('getReadiness: 200 once migrations ran and the database, queue and bus answer (ready once a worker beat)', async () => {
    const api = svc.client();
    const { data } = await api.run(getReadiness({ client: api.client }), { status: 200 });
    expect(data).toMatchObject({ role: 'all', checks: { database: 'ok', queue: 'ok', bus: 'ok', migrations: 'ok' } });
    expect(['ready', 'degraded']).toContain(data!.status);
  });

  it('getReadiness and getMetrics: each price source with its state, a blocked one degraded (with the fix) without failing readiness', async () => {
    const orm = await createOrm({ databaseUrl: svc.db.url });
    try {
      await recordSourceHealth(orm.em.fork(), [
        { source: 'demo', requests: 2, failures: 0, latencyMs: 3, atMs: 1_767_225_662_000, error: null },
      ]);
      const api = svc.client();
      const ok = await api.run(getReadiness({ client: api.client }), { status: 200 });
      expect(ok.data!.checks.prices).toBe('ok'); // probed at start-up
      expect(ok.data!.price_sources).toEqual([
        {
          source: 'demo',
          state: 'ok',
          reason: null,
          fix: null,
          retry_at_ms: null,
          checked_at_ms: expect.any(Number),
          last_success_at_ms: 1_767_225_662_000,
          last_failure_at_ms: null,
        },
      ]);
      await recordSourceHealth(orm.em.fork(), [
        { source: 'demo', requests: 2, failures: 2, latencyMs: 4000, atMs: 1_767_225_663_000, error: 'HTTP 451', blocked: 'HTTP 451' },
      ]);
      const degraded = await api.run(getReadiness({ client: api.client }), { status: 200 });
      expect(degraded.data!.checks.prices).toBe('degraded');
      expect(degraded.data!.price_sources[0]).toMatchObject({ state: 'blocked', reason: 'blocked', fix: expect.any(String) });
      const { data } = await api.run(getMetrics({ client: api.client }), { status: 200 });
      expect(data).toMatch(/^price_source_requests_total\{source="demo"\} 4$/m);
      expect(data).toMatch(/^price_source_failures_total\{source="demo"\} 2$/m);
      expect(data).toMatch(/^price_source_latency_seconds_total\{source="demo"\} 4\.003$/m);
      expect(data).toMatch(/^price_source_last_success_timestamp_seconds\{source="demo"\} 1767225662$/m);
    } finally {
      await orm.close(true);
    }
  });

  it('getMetrics: 200 Prometheus text that counts HTTP requests', async () => {
    // A metered request first, so that the counter has a sample and not only its HELP line.
    await (await fetch(new URL('/v1/does-not-exist', svc.baseUrl))).text();
    const api = svc.client();
    const { data, checked } = await api.run(getMetrics({ client: api.client }), { status: 200 });
    expect(checked.headers.get('content-type')).toMatch(/^text\/plain\b/);
    expect(data).toMatch(/^http_requests_total\{[^}]*\} \d+/m);
  });
});
