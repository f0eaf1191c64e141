// Processor of the `contests` queue; both jobs are steps of the contest lifecycle (src/trading/contest-lifecycle.ts).
//   resolve-contest (jobId = contest id): the `resolve` step scores, ranks and pays the contest in one
//     transaction, or voids and refunds it when every market was voided (resolveContest(), deciding in
//     src/domain/contests/resolution-plan.ts). It locks the contest and returns 'already_settled' when it is no
//     longer open, so a retry or duplicate pays nothing twice. After the commit the lifecycle publishes
//     `contests.changed` so every API process drops the contest's cached pages: this worker never publishes.
//   relay-resolutions (scheduled): enqueues open contests whose every market is settled: a resolution whose
//     enqueue was lost (API crash after the market's commit, Redis down) still happens.
import { UnrecoverableError } from 'bullmq';
import { createResolutionProducer } from '../src/jobs/resolution-producer.js';
import { createContestLifecycle } from '../src/trading/contest-lifecycle.js';
import { JOB, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const contestsWorker: WorkerSpec<typeof QUEUE.contests> = {
  concurrency: (kind) => (kind === 'pglite' ? 1 : 4),
  processor: ({ rt, log }) => {
    const producer = createResolutionProducer(rt.queues);
    const contests = createContestLifecycle({ forkDb: () => rt.orm.em.fork(), bus: rt.bus, resolution: producer, log });
    return {
      async process(job) {
        if (job.name === JOB.relayResolutions) {
          const ids = await contests.relay();
          if (ids.length) log.info({ contests: ids.length }, 'resolution relay enqueued contests whose markets are all settled');
          return { relayed: ids.length };
        }
        const { contest_id } = job.data;
        const started = Date.now();
        const outcome = await contests.resolve(contest_id);
        if (outcome === 'missing') throw new UnrecoverableError(`contest ${contest_id} does not exist`);
        log.info({ job_id: job.id, contest_id, outcome, ms: Date.now() - started }, `contest resolution: ${outcome}`);
        return { outcome };
      },
      close: () => producer.close(),
    };
  },
};
