// Contest processors (queue `contests`).
//   resolve-contest (jobId = contest id): resolveContest() scores, ranks and pays the contest in one
//     transaction, or voids and refunds it when every market was voided. It locks the contest and returns
//     'already_settled' when it is no longer open, so a retry or duplicate pays nothing twice.
//   relay-resolutions (scheduled): enqueues open contests whose every market is settled: a resolution whose
//     enqueue was lost (API crash after the market's commit, Redis down) still happens.
import { UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { Runtime } from '../src/runtime.js';
import type { Logger } from '../src/logger.js';
import { contestsAwaitingResolution, resolveContest } from '../src/domain/contests/resolution.js';
import { createResolutionProducer } from '../src/jobs/resolution-producer.js';
import { JOB, QUEUE, type ResolveContestJob } from '../src/jobs/queues.js';

export interface ContestWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

export async function startContestWorkers(rt: Runtime, common: Record<string, unknown>, log: Logger): Promise<ContestWorkers> {
  const { queues, orm } = rt;
  const connection = queues.connection;
  const producer = createResolutionProducer(queues);
  // The relay-resolutions scheduler: src/jobs/schedulers.ts (workers/start.ts).
  const worker = new queues.Worker(
    queues.queueName(QUEUE.contests),
    async (job: Job) => {
      if (job.name === JOB.relayResolutions) {
        const ids = await contestsAwaitingResolution(orm.em.fork());
        for (const id of ids) await producer.enqueue(id);
        if (ids.length) log.info({ contests: ids.length }, 'resolution relay enqueued contests whose markets are all settled');
        return { relayed: ids.length };
      }
      const { contest_id } = (job as Job<ResolveContestJob>).data;
      const started = Date.now();
      const outcome = await resolveContest(orm.em.fork(), contest_id);
      if (outcome === 'missing') throw new UnrecoverableError(`contest ${contest_id} does not exist`);
      log.info({ job_id: job.id, contest_id, outcome, ms: Date.now() - started }, `contest resolution: ${outcome}`);
      return { outcome };
    },
    { ...common, connection, concurrency: queues.kind === 'pglite' ? 1 : 4 },
  );
  return {
    workers: [worker],
    async close() {
      await producer.close();
    },
  };
}
