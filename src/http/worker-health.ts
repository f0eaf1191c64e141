// What /readyz asks about the workers: is one alive (a recent heartbeat row), and does every job scheduler
// exist (src/jobs/schedulers.ts)? Reported by every role; required by none (src/http/handlers/operations.ts).
import type { Orm } from '../db/orm.js';
import { latestHeartbeat } from '../domain/heartbeats.js';
import { CheckState } from './handlers/operations.js';
import type { SchedulerQueues } from '../jobs/schedulers.js';

export interface WorkerHealth {
  workers(): Promise<void>;
  schedulers(): Promise<void>;
}

export function createWorkerHealth(orm: Orm, queues: SchedulerQueues, staleAfterMs: number): WorkerHealth {
  return {
    async workers() {
      const beat = await latestHeartbeat(orm.em.fork());
      if (!beat) throw new CheckState('missing', 'no worker process has recorded a heartbeat');
      const ageMs = Date.now() - beat.lastSeenAt.getTime();
      if (ageMs > staleAfterMs)
        throw new CheckState('stale', `newest worker heartbeat (${beat.workerId}) is ${Math.round(ageMs / 1000)} s old`);
    },
    async schedulers() {
      const missing = await queues.missing();
      if (missing.length) throw new CheckState('missing', `job schedulers missing: ${missing.join(', ')}`);
    },
  };
}
