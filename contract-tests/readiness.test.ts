// getReadiness 503: a service whose database disappears says so on /readyz (its own service instance,
// because the test drops the database under it).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import pg from 'pg';
import { getReadiness } from '../generated/openapi/sdk.gen.ts';
import { ADMIN_URL } from '../src/testing/postgres.js';
import { startContractService, type ContractService } from './harness.ts';

let svc: ContractService;

beforeAll(async () => {
  svc = await startContractService('readiness');
});
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
});

describe('getReadiness', () => {
  it('503 UNAVAILABLE naming the failed check once the database is gone, within 2 s', async () => {
    const api = svc.client();
    await api.run(getReadiness({ client: api.client }), { status: 200 });
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`drop database "${svc.db.name}" with (force)`);
    } finally {
      await admin.end();
    }
    const started = Date.now();
    const { checked } = await api.run(getReadiness({ client: api.client }), { status: 503, code: 'UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(checked.body).toMatchObject({ details: { role: 'all', checks: { database: 'failed', queue: 'ok' } } });
    // The driver's reason (it names the database) stays in the logs, off the wire.
    expect(JSON.stringify(checked.body)).not.toContain(svc.db.name);
    expect(checked.headers.get('retry-after')).toBe('1');
  });
});
