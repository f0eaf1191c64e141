// getSystemStatus (GET /v1/admin/status): the operator's whole-system view, every documented status but 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSystemStatus } from '../generated/openapi/sdk.gen.ts';
import { newUser, startContestService, type Env } from './contests-fixtures.ts';

let env: Env;

beforeAll(async () => {
  env = await startContestService('system-status');
});
afterAll(async () => {
  if (env) expect(await env.svc.stop()).toBe(0);
});

describe('getSystemStatus', () => {
  it('200 with the operator token: dependencies, workers, every scheduler, queue counts and the price source', async () => {
    const { data } = await env.operator.run(getSystemStatus({ client: env.operator.client }), { status: 200 });
    expect(data!.dependencies).toEqual({ database: 'ok', queue: 'ok', bus: 'ok' });
    expect(data!.schedulers.map((s) => s.id)).toContain('sweep-rfqs');
    expect(data!.queues.map((q) => q.queue)).toContain('settlement');
    expect(data!.components).toEqual([{ name: 'demo', kind: 'price_source', state: 'ok', detail: null }]);
    expect(data!.workers.stale_after_ms).toBe(30_000);
  });

  it('401 UNAUTHORIZED without a token; 403 FORBIDDEN with a user session', async () => {
    const anon = env.svc.client();
    await anon.run(getSystemStatus({ client: anon.client }), { status: 401, code: 'UNAUTHORIZED' });
    const u = await newUser(env);
    await u.api.run(getSystemStatus({ client: u.api.client }), { status: 403, code: 'FORBIDDEN' });
  });
});
