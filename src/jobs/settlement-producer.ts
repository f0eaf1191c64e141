// Enqueues settlement jobs. jobId = operation id: a second add of the same operation (the handler and the
// outbox relay racing) is a no-op while the job exists; a job that already failed every attempt is retried.
import type { QueueBackend } from './queue-backend.js';
import { ensureJob } from './ensure-job.js';
import { openQueue } from './job-table.js';
import { JOB, QUEUE, SETTLE_ATTEMPTS, SETTLE_BACKOFF_MS } from './queues.js';

export interface SettlementProducer {
  /** A fresh operation (request path): one add, deduplicated by jobId. */
  enqueue(operationId: string): Promise<void>;
  /** An operation left pending (outbox relay): add it, or retry its job if that failed every attempt. */
  ensure(operationId: string): Promise<void>;
  close(): Promise<void>;
}

export function createSettlementProducer(queues: QueueBackend): SettlementProducer {
  const queue = openQueue(queues, QUEUE.settlement);
  const add = (operationId: string) =>
    queue.add(
      JOB.settleOperation,
      { operation_id: operationId },
      {
        jobId: operationId,
        attempts: SETTLE_ATTEMPTS,
        backoff: { type: 'exponential', delay: SETTLE_BACKOFF_MS },
        removeOnComplete: { age: 3600, count: 10_000 },
        removeOnFail: { age: 86_400 },
      },
    );
  return {
    async enqueue(operationId) {
      await add(operationId);
    },
    ensure: (operationId) => ensureJob(queue, operationId, () => add(operationId)),
    close: () => queue.close(),
  };
}
