// Processor of the `system` queue's record-heartbeat job: upserts this worker's row. Idempotent by nature
// (an upsert of "seen now"); a rerun only bumps the counter and the timestamp.
import { recordHeartbeat } from '../src/domain/heartbeats.js';
import type { QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const heartbeatWorker: WorkerSpec<typeof QUEUE.system> = {
  concurrency: () => 1,
  processor: ({ rt, me, log }) => ({
    async process(job): Promise<{ worker_id: string }> {
      await recordHeartbeat(rt.orm.em.fork(), me);
      log.debug({ job_id: job.id, requested_at_ms: job.data.requested_at_ms }, 'heartbeat recorded');
      return { worker_id: me.workerId };
    },
  }),
};
