// Processor of the `market-windows` queue's roll-windows job: ensures the current and the next window of
// every offered asset and duration exist. Idempotent (insert ... on conflict do nothing against the unique
// index): any number of workers may run it at once and each window is created once.
import { rollWindows } from '../src/domain/markets/markets.js';
import type { QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const marketWindowsWorker: WorkerSpec<typeof QUEUE.marketWindows> = {
  concurrency: () => 1,
  processor: ({ rt, log }) => ({
    async process(job): Promise<{ ensured: number; created: number }> {
      const result = await rollWindows(rt.orm.em.fork(), rt.config.markets);
      if (result.created) log.info({ job_id: job.id, ...result }, 'market windows created');
      else log.debug({ job_id: job.id, ...result }, 'market windows rolled');
      return result;
    },
  }),
};
