// /metrics behind METRICS_TOKEN: without the token (or with another) 401 INVALID_METRICS_TOKEN, with it 200; and on
// the internal METRICS_PORT: there alone (token still applied), the public port answering it 404 NOT_FOUND.
// Every response checked against the spec. The metrics name what the treasury holds: docs/deployment.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMetrics } from '../generated/openapi/sdk.gen.ts';
import { freePort } from '../src/testing/private-servers.js';
import { createContractClient, startContractService, type ContractService } from './harness.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
let svc: ContractService;
let internal: ContractService;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  [svc, internal] = await Promise.all([
    startContractService('metricstoken', { env: { METRICS_TOKEN } }),
    startContractService('metricsport', { env: { METRICS_TOKEN, METRICS_PORT: String(metricsPort) } }),
  ]);
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
  if (internal) expect(await internal.stop()).toBe(0);
});

describe('getMetrics with METRICS_TOKEN', () => {
  it('401 INVALID_METRICS_TOKEN without the token or with another; 200 with it', async () => {
    // /metrics declares no security scheme (a scraper is no user): the header is sent as such.
    const api = svc.client();
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    for (const headers of [{}, bearer(`${METRICS_TOKEN}x`), bearer('a-session-token-of-someone')]) {
      const { error } = await api.run(getMetrics({ client: api.client, headers }), { status: 401, code: 'INVALID_METRICS_TOKEN' });
      expect(JSON.stringify(error)).not.toContain(METRICS_TOKEN);
    }
    const { data } = await api.run(getMetrics({ client: api.client, headers: bearer(METRICS_TOKEN) }), { status: 200 });
    expect(data).toContain('# TYPE http_requests_total counter');
  });
});

describe('getMetrics with METRICS_PORT', () => {
  it('the public port answers 404 NOT_FOUND (token or not); the internal port serves it, behind the token', async () => {
    const bearer = { authorization: `Bearer ${METRICS_TOKEN}` };
    const pub = internal.client();
    for (const headers of [{}, bearer]) await pub.run(getMetrics({ client: pub.client, headers }), { status: 404, code: 'NOT_FOUND' });
    const inner = createContractClient(`http://127.0.0.1:${metricsPort}`);
    await inner.run(getMetrics({ client: inner.client }), { status: 401, code: 'INVALID_METRICS_TOKEN' });
    const { data } = await inner.run(getMetrics({ client: inner.client, headers: bearer }), { status: 200 });
    expect(data).toContain('# TYPE http_requests_total counter');
    // The internal port serves /metrics only.
    expect((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status).toBe(404);
  });
});
