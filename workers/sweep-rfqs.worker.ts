// Processor of the `rfq` queue's sweep-rfqs job (scheduled every RFQ_SWEEP_EVERY_MS): the lifecycle's sweep
// step (src/trading/rfq-lifecycle.ts) closes open RFQs whose due time passed more than RFQ_SWEEP_GRACE_MS
// ago. Normally the process that created an RFQ closes it on time with its own timer (src/trading/rfq-events.ts
// createRfqCloser().closeAt); when that process died, this is what closes the RFQ, fills or expires it and
// releases the taker's stake. closeRfq is idempotent under the row lock, so a sweep racing the owner's timer
// (or another sweep) changes nothing twice, and the closer publishes rfq_closed / quote_result only for the
// close that changed the row.
import { rfqDepsOf } from '../src/domain/rfq/deps.js';
import { createRfqLifecycle } from '../src/trading/rfq-lifecycle.js';
import { RFQ_SWEEP_BATCH, RFQ_SWEEP_GRACE_MS, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const sweepRfqsWorker: WorkerSpec<typeof QUEUE.rfq> = {
  concurrency: () => 1,
  // A worker process that dies holding a sweep job must not stop sweeping for BullMQ's default 30 s lock:
  // the job's lock is short (renewed every 2.5 s while it runs) and stalled jobs are looked for every 5 s.
  options: { lockDuration: 5_000, stalledInterval: 5_000 },
  processor: ({ rt, log }) => {
    const { config } = rt;
    const trading = createRfqLifecycle({
      forkDb: () => rt.orm.em.fork(),
      bus: rt.bus,
      rfq: rfqDepsOf(config),
      log,
    });
    return {
      async process(job): Promise<{ due: number; failed: number }> {
        const { ids, failed } = await trading.sweep(Date.now(), RFQ_SWEEP_GRACE_MS, RFQ_SWEEP_BATCH);
        if (ids.length) log.info({ job_id: job.id, due: ids.length, failed, rfq_ids: ids.slice(0, 20) }, 'overdue RFQs swept');
        return { due: ids.length, failed };
      },
      close: () => Promise.resolve(trading.stop()),
    };
  },
};
