// Operations that are built, called through the generated client with every response checked.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { getHealth, getMetrics, getReadiness } from '../generated/openapi/sdk.gen.ts';
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

  it('getMetrics: 200 Prometheus text that counts HTTP requests', async () => {
    // A metered request first, so that the counter has a sample and not only its HELP line.
    await (await fetch(new URL('/v1/does-not-exist', svc.baseUrl))).text();
    const api = svc.client();
    const { data, checked } = await api.run(getMetrics({ client: api.client }), { status: 200 });
    expect(checked.headers.get('content-type')).toMatch(/^text\/plain\b/);
    expect(data).toMatch(/^http_requests_total\{[^}]*\} \d+/m);
  });
});
