// /metrics behind METRICS_TOKEN: without the token (or with another) 401 INVALID_METRICS_TOKEN, with it 200;
// every response checked against the spec. The metrics name what the treasury holds: docs/deployment.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMetrics } from '../generated/openapi/sdk.gen.ts';
import { startContractService, type ContractService } from './harness.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
let svc: ContractService;

beforeAll(async () => {
  svc = await startContractService('metricstoken', { env: { METRICS_TOKEN } });
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
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
