// Processor of the `contests` queue.
//   resolve-contest (jobId = contest id): resolveContest() scores, ranks and pays the contest in one
//     transaction, or voids and refunds it when every market was voided. It locks the contest and returns
//     'already_settled' when it is no longer open, so a retry or duplicate pays nothing twice. After the
//     commit it publishes `contests.changed` so every API process drops the contest's cached pages.
//   relay-resolutions (scheduled): enqueues open contests whose every market is settled: a resolution whose
//     enqueue was lost (API crash after the market's commit, Redis down) still happens.
import { UnrecoverableError } from 'bullmq';
import { contestsAwaitingResolution, resolveContest } from '../src/domain/contests/resolution.js';
import { createResolutionProducer } from '../src/jobs/resolution-producer.js';
import { publishContestsChanged } from '../src/bus/contest-events.js';
import { JOB, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const contestsWorker: WorkerSpec<typeof QUEUE.contests> = {
  concurrency: (kind) => (kind === 'pglite' ? 1 : 4),
  processor: ({ rt, log }) => {
    const { orm } = rt;
    const producer = createResolutionProducer(rt.queues);
    return {
      async process(job) {
        if (job.name === JOB.relayResolutions) {
          const ids = await contestsAwaitingResolution(orm.em.fork());
          for (const id of ids) await producer.enqueue(id);
          if (ids.length) log.info({ contests: ids.length }, 'resolution relay enqueued contests whose markets are all settled');
          return { relayed: ids.length };
        }
        const { contest_id } = job.data;
        const started = Date.now();
        const outcome = await resolveContest(orm.em.fork(), contest_id);
        if (outcome === 'missing') throw new UnrecoverableError(`contest ${contest_id} does not exist`);
        if (outcome === 'resolved' || outcome === 'voided') await publishContestsChanged(rt.bus, contest_id);
        log.info({ job_id: job.id, contest_id, outcome, ms: Date.now() - started }, `contest resolution: ${outcome}`);
        return { outcome };
      },
      close: () => producer.close(),
    };
  },
};
