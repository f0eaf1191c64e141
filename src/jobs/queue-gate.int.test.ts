// Issue 15 #3: with Redis down, a request that needs the queue (a deposit) answers 503 with Retry-After
// within QUEUE_WAIT_MS instead of hanging until Redis returns; nothing is claimed, so the same request
// with the same key succeeds once Redis is back. Requests that do not need Redis are not slowed.
// A private redis-server on a free port (killed and restarted here), the real service process.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../testing/private-servers.js';
import { startTestService, type TestService } from '../testing/test-service.js';
import { createDeposit, getAvailableBalance } from '../../generated/openapi/sdk.gen.js';
import { ledgerProblems, newUserSession } from '../testing/money.js';
import { sdkClient, sent } from '../testing/sdk-client.js';

let redis: PrivateRedis;
let t: TestService;

beforeAll(async () => {
  redis = await startPrivateRedis();
  t = await startTestService('queuegate', { REDIS_URL: redis.url, QUEUE_WAIT_MS: '1500', DEPOSIT_SYNC_WAIT_MS: '3000' });
});
afterAll(async () => {
  await t?.stop();
  await redis?.destroy();
});

describe('Redis down', () => {
  it('a deposit answers 503 + Retry-After within the bounded wait; the same key succeeds after Redis returns', async () => {
    const user = await newUserSession(t.svc.baseUrl, t.privy);
    const key = randomUUID();
    const client = sdkClient(t.svc.baseUrl, user.token);
    const deposit = () => sent(createDeposit({ client, body: { amount_micros: 5000000, idempotency_key: key } }));

    await redis.kill();
    let started = Date.now();
    const during = await deposit();
    const tookMs = Date.now() - started;
    expect(during.status, JSON.stringify(during.error ?? during.data)).toBe(503);
    expect(during.error).toMatchObject({ code: 'UNAVAILABLE', details: { dependency: 'queue' } });
    expect(during.response.headers.get('retry-after')).toBe('2');
    expect(tookMs).toBeGreaterThanOrEqual(1400);
    expect(tookMs).toBeLessThan(4000);
    // Nothing was claimed or written.
    const { rows } = await t.sql.query(
      'select (select count(*) from idempotency_keys)::int as keys, (select count(*) from operations)::int as ops',
    );
    expect(rows[0]).toEqual({ keys: 0, ops: 0 });
    // Reads that do not need Redis answer at once.
    started = Date.now();
    const balance = await sent(getAvailableBalance({ client }));
    expect(balance.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);

    await redis.start();
    // The client honours Retry-After until the service has reconnected.
    let after = await deposit();
    for (let i = 0; i < 10 && after.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 1000 * Number(after.response.headers.get('retry-after'))));
      after = await deposit();
    }
    expect([200, 202]).toContain(after.status);
    const settled = await t.sql.query("select count(*)::int as n from operations where kind = 'deposit'");
    expect(settled.rows[0].n).toBe(1);
    expect(await ledgerProblems(t.sql)).toEqual([]);
  }, 60_000);
});
