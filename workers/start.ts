// Starts every queue processor of this process. `npm run start:workers` (src/main.ts --role=workers) runs them as a
// process of their own; `npm start` runs them inside the API process. Processors are the same whichever
// queue backend runs.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Worker } from 'bullmq';
import type { Runtime } from '../src/runtime.js';
import { QUEUE, SCHEDULER_CHECK_EVERY_MS } from '../src/jobs/queues.js';
import { startSchedulerKeeper } from '../src/jobs/schedulers.js';
import { heartbeatProcessor } from './heartbeat.worker.js';
import { housekeepingProcessor } from './housekeeping.worker.js';
import { rollWindowsProcessor } from './market-windows.worker.js';
import { startMoneyWorkers } from './settle-operation.worker.js';
import { startContestWorkers } from './resolve-contest.worker.js';

export interface Workers {
  workerId: string;
  close(): Promise<void>;
}

export async function startWorkers(rt: Runtime): Promise<Workers> {
  const { queues, orm, logger } = rt;
  const me = { workerId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`, startedAt: new Date() };
  const log = logger.child({ worker_id: me.workerId });
  const workers: Worker[] = [];
  const connection = queues.connection;
  // Short lock and stall intervals: a job of a crashed worker is picked up again within ~30 s.
  const common = { connection, lockDuration: 15_000, stalledInterval: 10_000, maxStalledCount: 5 };

  // Every scheduler (src/jobs/schedulers.ts), re-created whenever one goes missing (Redis restarted empty).
  const keeper = await startSchedulerKeeper(queues, log, SCHEDULER_CHECK_EVERY_MS);
  const system = new queues.Worker(queues.queueName(QUEUE.system), heartbeatProcessor(orm, me, log), { ...common, concurrency: 1 });
  workers.push(system);

  workers.push(new queues.Worker(queues.queueName(QUEUE.housekeeping), housekeepingProcessor(orm, log), { ...common, concurrency: 1 }));
  workers.push(
    new queues.Worker(queues.queueName(QUEUE.marketWindows), rollWindowsProcessor(orm, rt.config.markets, log), { ...common, concurrency: 1 }),
  );

  const money = await startMoneyWorkers(rt, common, log);
  workers.push(...money.workers);
  const contests = await startContestWorkers(rt, common, log);
  workers.push(...contests.workers);

  for (const w of workers) {
    w.on('failed', (job, err) => log.warn({ queue: w.name, job_id: job?.id, job_name: job?.name, attempts: job?.attemptsMade, err }, 'job failed'));
    w.on('error', (err) => log.error({ queue: w.name, err }, 'worker error'));
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  log.info({ queues: workers.map((w) => w.name), backend: queues.kind }, 'workers started');
  return {
    workerId: me.workerId,
    async close() {
      // Worker.close() waits for the jobs in progress to finish: nothing is left half-done.
      await Promise.all(workers.map((w) => w.close()));
      await keeper.close();
      await money.close();
      await contests.close();
      log.info('workers stopped');
    },
  };
}

