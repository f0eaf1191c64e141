// Issue 15 #9: expired sessions and used or expired wallet nonces are pruned by the housekeeping queue's
// scheduled job (prune-expired-auth), run here by the real worker process; the deletes use indexes.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { startTestService, type TestService } from '../../testing/test-service.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../testing/postgres.js';
import { getPreferences } from '../../../generated/openapi/sdk.gen.js';
import { sdkClient, sent } from '../../testing/sdk-client.js';
import { newUserSession } from '../../testing/money.js';
import { JOB, QUEUE } from '../../jobs/queues.js';

const prefix = uniquePrefix('prune');
let t: TestService;
beforeAll(async () => {
  t = await startTestService('prune', { QUEUE_PREFIX: prefix });
});
afterAll(async () => {
  await t?.stop();
});

async function addSession(userId: string, expiresAgo: string | null, revokedAgo: string | null): Promise<string> {
  const id = randomUUID();
  await t.sql.query(
    `insert into sessions (id, token_hash, kind, user_id, expires_at, revoked_at)
     values ($1, $2, 'user', $3, now() - $4::interval, now() - $5::interval)`,
    [id, randomBytes(32), userId, expiresAgo ?? '-1 day', revokedAgo],
  );
  return id;
}

describe('prune-expired-auth', () => {
  it('deletes sessions expired or revoked over an hour ago and used or expired nonces; keeps the rest', async () => {
    const user = await newUserSession(t.svc.baseUrl, t.privy);
    const expiredLongAgo = await addSession(user.userId, '2 hours', null);
    const revokedLongAgo = await addSession(user.userId, null, '2 hours');
    const expiredRecently = await addSession(user.userId, '10 minutes', null);
    const live = await addSession(user.userId, null, null);
    await t.sql.query(
      `insert into wallet_nonces (nonce, expires_at, used_at) values
         ('usedusedusedused01', now() + interval '4 minutes', now()),
         ('expiredexpired0002', now() - interval '1 minute', null),
         ('freshfreshfresh003', now() + interval '4 minutes', null)`,
    );

    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(`${prefix}_${QUEUE.housekeeping}`, { connection });
    const events = new QueueEvents(`${prefix}_${QUEUE.housekeeping}`, { connection: connection.duplicate() });
    try {
      // The service answers HTTP before its workers have started; under a loaded CI run that gap was once most of
      // the 20 s this test used to allow the job, so it waits for the housekeeping worker first.
      await t.svc.waitForLog((l) => l.msg === 'workers started', 30_000);
      await events.waitUntilReady();
      const job = await queue.add(JOB.pruneExpiredAuth, {}, { removeOnComplete: true });
      const result = (await job.waitUntilFinished(events, 30_000).catch((err: Error) => {
        throw new Error(`${err.message}; the service's last output:\n${t.svc.rawOutput.slice(-30).join('\n')}`);
      })) as { sessions: number; walletNonces: number };
      expect(result.sessions).toBeGreaterThanOrEqual(2);
      expect(result.walletNonces).toBeGreaterThanOrEqual(2);
    } finally {
      await events.close();
      await queue.close();
      connection.disconnect();
    }
    const sessions = (await t.sql.query('select id from sessions')).rows.map((r) => r.id as string);
    expect(sessions).not.toContain(expiredLongAgo);
    expect(sessions).not.toContain(revokedLongAgo);
    expect(sessions).toEqual(expect.arrayContaining([expiredRecently, live]));
    const nonces = (await t.sql.query('select nonce from wallet_nonces order by nonce')).rows.map((r) => r.nonce as string);
    expect(nonces).toContain('freshfreshfresh003');
    expect(nonces).not.toContain('usedusedusedused01');
    expect(nonces).not.toContain('expiredexpired0002');
    // The user's real session still works.
    expect((await sent(getPreferences({ client: sdkClient(t.svc.baseUrl, user.token) }))).status).toBe(200);
  }, 90_000);

  it('each prune predicate is an index scan (Migration20261123020000_auth_prune)', async () => {
    await t.sql.query('set enable_seqscan = off');
    try {
      const plan = async (q: string) => (await t.sql.query(`explain ${q}`)).rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      expect(await plan("select id from sessions where expires_at < now() - interval '1 hour'")).toMatch(/sessions_expires_at_idx/);
      expect(await plan("select id from sessions where revoked_at < now() - interval '1 hour'")).toMatch(/sessions_revoked_at_idx/);
      expect(await plan('select nonce from wallet_nonces where used_at is not null')).toMatch(/wallet_nonces_used_at_idx/);
      expect(await plan('select nonce from wallet_nonces where expires_at < now()')).toMatch(/wallet_nonces_expires_at_idx/);
    } finally {
      await t.sql.query('reset enable_seqscan');
    }
  });
});
