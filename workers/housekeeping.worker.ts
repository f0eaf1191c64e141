// Processor of the `housekeeping` queue: prune-expired-auth (scheduled, src/jobs/schedulers.ts) deletes
// expired sessions and used or expired wallet nonces. Idempotent: a rerun deletes what is left, if anything.
import { pruneExpiredAuth, type AuthPruneResult } from '../src/domain/identity/prune.js';
import type { QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const housekeepingWorker: WorkerSpec<typeof QUEUE.housekeeping> = {
  concurrency: () => 1,
  processor: ({ rt, log }) => ({
    async process(job): Promise<AuthPruneResult> {
      const result = await pruneExpiredAuth(rt.orm.em.fork());
      if (result.sessions || result.walletNonces || result.limits)
        log.info({ job_id: job.id, ...result }, 'expired sessions and wallet nonces pruned');
      else log.debug({ job_id: job.id }, 'nothing to prune');
      return result;
    },
  }),
};
