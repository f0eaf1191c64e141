// Processor of the `market-windows` queue's roll-windows job: ensures the current and the next window of
// every offered asset and duration exist. Idempotent (insert ... on conflict do nothing against the unique
// index): any number of workers may run it at once and each window is created once.
import type { Job } from 'bullmq';
import type { Orm } from '../src/db/orm.js';
import type { Logger } from '../src/logger.js';
import { rollWindows, type MarketSettings } from '../src/domain/markets/markets.js';
import type { RollWindowsJob } from '../src/jobs/queues.js';

export function rollWindowsProcessor(orm: Orm, settings: MarketSettings, log: Logger) {
  return async (job: Job<RollWindowsJob>): Promise<{ ensured: number; created: number }> => {
    const result = await rollWindows(orm.em.fork(), settings);
    if (result.created) log.info({ job_id: job.id, ...result }, 'market windows created');
    else log.debug({ job_id: job.id, ...result }, 'market windows rolled');
    return result;
  };
}
