// Processor of the `settlement` queue.
//   settle-operation (jobId = operation id): settles one deposit or withdrawal. Idempotent: settleOperation()
//     locks the operation and does nothing when it is no longer pending, so a rerun after a crash (stalled
//     job) or a duplicate changes nothing. Retried with exponential backoff; an operation id that does not
//     exist is an impossible state: UnrecoverableError, no retry.
//   relay-outbox (scheduled): re-enqueues operations whose outbox row is older than RELAY_AFTER_MS
//     (committed, then the API crashed before enqueueing; or a job that used every attempt).
import { UnrecoverableError } from 'bullmq';
import { settleOperation, staleOutbox } from '../src/domain/money/operations.js';
import { createSettlementAdapter } from '../src/domain/settlement/index.js';
import { createSettlementProducer } from '../src/jobs/settlement-producer.js';
import { JOB, RELAY_AFTER_MS, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const settlementWorker: WorkerSpec<typeof QUEUE.settlement> = {
  concurrency: (kind) => (kind === 'pglite' ? 1 : 8),
  processor: ({ rt, log }) => {
    const { orm, config } = rt;
    const adapter = createSettlementAdapter({ mode: config.settlementMode, demoOnchainBalanceMicros: config.demoOnchainBalanceMicros });
    const producer = createSettlementProducer(rt.queues);
    return {
      async process(job) {
        if (job.name === JOB.relayOutbox) {
          const ids = await staleOutbox(orm.em.fork(), RELAY_AFTER_MS);
          for (const id of ids) await producer.ensure(id);
          if (ids.length) log.info({ operations: ids.length }, 'outbox relay re-enqueued pending operations');
          return { relayed: ids.length };
        }
        const { operation_id } = job.data;
        const outcome = await settleOperation(orm.em.fork(), adapter, operation_id);
        if (outcome === 'missing') throw new UnrecoverableError(`operation ${operation_id} does not exist`);
        // Wakes the API request waiting for this settlement (src/bus/operation-waiter.ts); lost: it polls.
        await rt.bus
          .publish('operation.settled', { operation_id })
          .catch((err: unknown) => log.warn({ err, operation_id }, 'could not publish operation.settled'));
        log.debug({ job_id: job.id, operation_id, outcome }, 'operation settled');
        return { outcome };
      },
      close: () => producer.close(),
    };
  },
};
