// Enqueues RFQ window resolutions (docs/trading.md, "Resolution and settlement"). jobId = window-<market id>: the relay and the operator's
// override add one job per window; resolve + settle are idempotent (the outcome is immutable, only pending
// legs and open positions are touched), so a replaced completed job or a retried failed one pays nothing twice.
import type { QueueBackend } from './queue-backend.js';
import { ensureJob } from './ensure-job.js';
import { openQueue } from './job-table.js';
import { JOB, QUEUE, RESOLVE_WINDOW_ATTEMPTS, SETTLE_BACKOFF_MS } from './queues.js';

export interface WindowResolutionProducer {
  enqueue(marketId: number): Promise<void>;
  close(): Promise<void>;
}

export const windowJobId = (marketId: number) => `window-${marketId}`;

export function createWindowResolutionProducer(queues: QueueBackend): WindowResolutionProducer {
  const queue = openQueue(queues, QUEUE.marketResolution);
  const add = (marketId: number) =>
    queue.add(
      JOB.resolveWindow,
      { market_id: marketId },
      {
        jobId: windowJobId(marketId),
        attempts: RESOLVE_WINDOW_ATTEMPTS,
        backoff: { type: 'exponential', delay: SETTLE_BACKOFF_MS },
        removeOnComplete: true,
        removeOnFail: { age: 86_400 },
      },
    );
  return {
    enqueue: (marketId) => ensureJob(queue, windowJobId(marketId), () => add(marketId)),
    close: () => queue.close(),
  };
}
