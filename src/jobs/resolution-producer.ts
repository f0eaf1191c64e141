// Enqueues contest resolutions. jobId = contest id: the operator's last market resolution and the relay
// racing add one job; a job that completed or failed is replaced, since resolveContest() is idempotent and
// the relay only asks for contests that are still open.
import type { QueueBackend } from './queue-backend.js';
import { ensureJob } from './ensure-job.js';
import { openQueue } from './job-table.js';
import { JOB, QUEUE, RESOLVE_ATTEMPTS, SETTLE_BACKOFF_MS } from './queues.js';

export interface ResolutionProducer {
  enqueue(contestId: string): Promise<void>;
  close(): Promise<void>;
}

export function createResolutionProducer(queues: QueueBackend): ResolutionProducer {
  const queue = openQueue(queues, QUEUE.contests);
  const add = (contestId: string) =>
    queue.add(
      JOB.resolveContest,
      { contest_id: contestId },
      {
        jobId: contestId,
        attempts: RESOLVE_ATTEMPTS,
        backoff: { type: 'exponential', delay: SETTLE_BACKOFF_MS },
        removeOnComplete: true,
        removeOnFail: { age: 86_400 },
      },
    );
  return {
    enqueue: (contestId) => ensureJob(queue, contestId, () => add(contestId)),
    close: () => queue.close(),
  };
}
