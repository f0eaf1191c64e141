// The same processor runs unchanged on each of the three queue backends, and the heartbeat job really
// writes through the ORM of that deployment.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { createLogger } from '../logger.js';
import { openRuntime, type Runtime } from '../runtime.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../testing/postgres.js';
import { heartbeatWorker } from '../../workers/heartbeat.worker.js';
import type { JobOf } from './job-table.js';
import { JOB, QUEUE } from './queues.js';
import { WorkerHeartbeat } from '../db/entities/index.js';
import { createSettlementAdapter } from '../domain/settlement/index.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function runtimeFor(mode: 'embedded' | 'postgres' | 'production'): Promise<Runtime> {
  const env: Record<string, string> = { QUEUE_PREFIX: uniquePrefix(mode), LOG_LEVEL: 'silent' };
  if (mode === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'crfq-embedded-'));
    env.DATA_DIR = dir;
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  } else {
    const db: TestDatabase = await createTestDatabase(mode);
    cleanups.push(() => db.drop());
    env.DATABASE_URL = db.url;
    if (mode === 'production') env.REDIS_URL = TEST_REDIS_URL;
  }
  const config = loadConfig(env);
  const rt = await openRuntime(config, createLogger('silent'));
  cleanups.push(() => rt.close());
  return rt;
}

describe.each(['embedded', 'postgres', 'production'] as const)('queue backend: %s', (mode) => {
  it('enqueues a job, a worker processes it, and its database write is visible', async () => {
    const rt = await runtimeFor(mode);
    expect(rt.queues.kind).toBe({ embedded: 'pglite', postgres: 'postgres', production: 'redis' }[mode]);
    const name = rt.queues.queueName(QUEUE.system);
    const connection = rt.queues.connection;
    const me = { workerId: `test-${mode}`, startedAt: new Date() };
    const queue = new rt.queues.Queue(name, { connection });
    const events = new rt.queues.QueueEvents(name, { connection });
    const heartbeat = heartbeatWorker.processor({
      rt,
      log: rt.logger,
      me,
      settlement: createSettlementAdapter(rt.config),
      stopping: new AbortController().signal,
    });
    const worker = new rt.queues.Worker(name, (job) => heartbeat.process(job as JobOf<typeof QUEUE.system>), { connection });
    try {
      await events.waitUntilReady();
      // A fixed jobId dedupes: the second add returns the same job and it runs once.
      const a = await queue.add(JOB.recordHeartbeat, { requested_at_ms: Date.now() }, { jobId: 'probe-1' });
      const b = await queue.add(JOB.recordHeartbeat, { requested_at_ms: Date.now() }, { jobId: 'probe-1' });
      expect(b.id).toBe(a.id);
      expect(await a.waitUntilFinished(events, 20_000)).toEqual({ worker_id: me.workerId });
      await rt.queues.ping();
      const row = await rt.orm.em.fork().findOneOrFail(WorkerHeartbeat, { workerId: me.workerId });
      expect(row.jobsProcessed).toBe('1'); // int8 as text on every driver (src/db/int8.ts)
    } finally {
      await worker.close();
      await events.close();
      await queue.close();
    }
  });
});
