// "Make sure a job with this id will run": the pattern of every relay. BullMQ's add() with an existing jobId
// is a no-op, which is right while the job waits or runs, but not when it already failed every attempt
// (retry it) or completed while its subject still needs work (replace it). Jobs must be idempotent.
import type { Queue } from 'bullmq';

export async function ensureJob(queue: Pick<Queue, 'getJob'>, jobId: string, add: () => Promise<unknown>): Promise<void> {
  const existing = await queue.getJob(jobId);
  if (!existing) {
    await add();
    return;
  }
  const state = await existing.getState();
  if (state === 'failed') await existing.retry('failed');
  else if (state === 'completed') {
    await existing.remove();
    await add();
  }
}
