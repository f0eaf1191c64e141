// Money processors.
//   settlement queue, settle-operation (jobId = operation id): settles one deposit or withdrawal. Idempotent:
//     settleOperation() locks the operation and does nothing when it is no longer pending, so a rerun after
//     a crash (stalled job) or a duplicate changes nothing. Retried with exponential backoff; an operation
//     id that does not exist is an impossible state: UnrecoverableError, no retry.
//   settlement queue, relay-outbox (scheduled): re-enqueues operations whose outbox row is older than
//     RELAY_AFTER_MS (committed, then the API crashed before enqueueing; or a job that used every attempt).
//   idempotency queue, prune-idempotency-keys (scheduled): deletes done keys older than 24 h, except those of
//     operations still pending; in-progress keys are never pruned (pruneIdempotencyKeys).
import { UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { Runtime } from '../src/runtime.js';
import type { Logger } from '../src/logger.js';
import { pruneIdempotencyKeys } from '../src/domain/idempotency.js';
import { settleOperation, staleOutbox } from '../src/domain/money/operations.js';
import { createSettlementAdapter } from '../src/domain/settlement/index.js';
import { createSettlementProducer } from '../src/jobs/settlement-producer.js';
import { JOB, QUEUE, RELAY_AFTER_MS, type SettleOperationJob } from '../src/jobs/queues.js';

export interface MoneyWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

export async function startMoneyWorkers(rt: Runtime, common: Record<string, unknown>, log: Logger): Promise<MoneyWorkers> {
  const { queues, orm, config } = rt;
  const connection = queues.connection;
  const adapter = createSettlementAdapter({ mode: config.settlementMode, demoOnchainBalanceMicros: config.demoOnchainBalanceMicros });
  const producer = createSettlementProducer(queues);

  // The relay-outbox and prune-idempotency-keys schedulers: src/jobs/schedulers.ts (workers/start.ts).

  const settlement = new queues.Worker(
    queues.queueName(QUEUE.settlement),
    async (job: Job) => {
      if (job.name === JOB.relayOutbox) {
        const ids = await staleOutbox(orm.em.fork(), RELAY_AFTER_MS);
        for (const id of ids) await producer.ensure(id);
        if (ids.length) log.info({ operations: ids.length }, 'outbox relay re-enqueued pending operations');
        return { relayed: ids.length };
      }
      const { operation_id } = (job as Job<SettleOperationJob>).data;
      const outcome = await settleOperation(orm.em.fork(), adapter, operation_id);
      if (outcome === 'missing') throw new UnrecoverableError(`operation ${operation_id} does not exist`);
      log.debug({ job_id: job.id, operation_id, outcome }, 'operation settled');
      return { outcome };
    },
    { ...common, connection, concurrency: queues.kind === 'pglite' ? 1 : 8 },
  );
  const idempotency = new queues.Worker(
    queues.queueName(QUEUE.idempotency),
    async () => {
      const pruned = await pruneIdempotencyKeys(orm.em.fork());
      if (pruned) log.info({ pruned }, 'idempotency keys pruned');
      return { pruned };
    },
    { ...common, connection, concurrency: 1 },
  );
  return {
    workers: [settlement, idempotency],
    async close() {
      await producer.close();
    },
  };
}
