// Processor of the `idempotency` queue's prune-idempotency-keys job (scheduled): deletes done keys older than
// 24 h, except those of operations still pending; in-progress keys are never pruned (pruneIdempotencyKeys).
import { pruneIdempotencyKeys } from '../src/domain/idempotency.js';
import type { QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const pruneIdempotencyWorker: WorkerSpec<typeof QUEUE.idempotency> = {
  concurrency: () => 1,
  processor: ({ rt, log }) => ({
    async process() {
      const pruned = await pruneIdempotencyKeys(rt.orm.em.fork());
      if (pruned) log.info({ pruned }, 'idempotency keys pruned');
      return { pruned };
    },
  }),
};
