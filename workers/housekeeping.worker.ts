// Processor of the `housekeeping` queue: prune-expired-auth (scheduled, src/jobs/schedulers.ts) deletes
// expired sessions and used or expired wallet nonces. Idempotent: a rerun deletes what is left, if anything.
import type { Job } from 'bullmq';
import type { Orm } from '../src/db/orm.js';
import type { Logger } from '../src/logger.js';
import { pruneExpiredAuth, type AuthPruneResult } from '../src/domain/identity/prune.js';

export function housekeepingProcessor(orm: Orm, log: Logger) {
  return async (job: Job): Promise<AuthPruneResult> => {
    const result = await pruneExpiredAuth(orm.em.fork());
    if (result.sessions || result.walletNonces || result.limits) log.info({ job_id: job.id, ...result }, 'expired sessions and wallet nonces pruned');
    else log.debug({ job_id: job.id }, 'nothing to prune');
    return result;
  };
}
