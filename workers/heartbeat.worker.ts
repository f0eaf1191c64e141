// Processor of the `system` queue's record-heartbeat job: upserts this worker's row. Idempotent by nature
// (an upsert of "seen now"); a rerun only bumps the counter and the timestamp.
import type { Job } from 'bullmq';
import type { Orm } from '../src/db/orm.js';
import type { Logger } from '../src/logger.js';
import { recordHeartbeat, type WorkerIdentity } from '../src/domain/heartbeats.js';
import type { RecordHeartbeatJob } from '../src/jobs/queues.js';

export function heartbeatProcessor(orm: Orm, me: WorkerIdentity, log: Logger) {
  return async (job: Job<RecordHeartbeatJob>): Promise<{ worker_id: string }> => {
    await recordHeartbeat(orm.em.fork(), me);
    log.debug({ job_id: job.id, requested_at_ms: job.data.requested_at_ms }, 'heartbeat recorded');
    return { worker_id: me.workerId };
  };
}
