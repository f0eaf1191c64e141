// Processor of the `housekeeping` queue (scheduled, src/jobs/schedulers.ts): prune-expired-auth deletes expired
// sessions and used or expired wallet nonces; prune-user-events deletes the user channel's events older than
// USER_EVENTS_RETENTION_MS (docs/user-channel.md). Idempotent: a rerun deletes what is left, if anything.
import { pruneExpiredAuth, type AuthPruneResult } from '../src/domain/identity/prune.js';
import { pruneUserEvents } from '../src/domain/user-events/log.js';
import { JOB, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const housekeepingWorker: WorkerSpec<typeof QUEUE.housekeeping> = {
  concurrency: () => 1,
  processor: ({ rt, log }) => ({
    async process(job): Promise<AuthPruneResult | { userEvents: number }> {
      if (job.name === JOB.pruneUserEvents) {
        const userEvents = await pruneUserEvents(rt.orm.em.fork(), Date.now() - rt.config.userChannel.retentionMs);
        if (userEvents) log.info({ job_id: job.id, user_events: userEvents }, 'user events past the retention pruned');
        return { userEvents };
      }
      const result = await pruneExpiredAuth(rt.orm.em.fork());
      if (result.sessions || result.walletNonces || result.limits)
        log.info({ job_id: job.id, ...result }, 'expired sessions and wallet nonces pruned');
      else log.debug({ job_id: job.id }, 'nothing to prune');
      return result;
    },
  }),
};
