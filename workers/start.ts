// Starts every queue processor of this process from the worker table (workers/table.ts). `npm run
// start:workers` (src/main.ts --role=workers) runs them as a process of their own; `npm start` runs them
// inside the API process. Processors are the same whichever queue backend runs.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Worker } from 'bullmq';
import type { Runtime } from '../src/runtime.js';
import type { JobOf } from '../src/jobs/job-table.js';
import { SCHEDULER_CHECK_EVERY_MS, type QueueNoun } from '../src/jobs/queues.js';
import { startSchedulerKeeper } from '../src/jobs/schedulers.js';
import { openSettlement } from '../src/domain/settlement/index.js';
import { ChainCheckError } from '../src/adapters/chain/chain.js';
import { WORKERS } from './table.js';
import type { Processor, WorkerDeps, WorkerSpec } from './worker-spec.js';

export interface Workers {
  workerId: string;
  close(): Promise<void>;
}

export async function startWorkers(rt: Runtime): Promise<Workers> {
  const { queues, logger } = rt;
  const me = { workerId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`, startedAt: new Date() };
  const log = logger.child({ worker_id: me.workerId });
  // SETTLEMENT_MODE's adapter; onchain: the chain checked before any job runs (a wrong chain refuses the start).
  // Workers sign (API processes need only SETTLEMENT_ADDRESS): a key or an external signer, or no start.
  const chainCfg = rt.config.chain;
  if (chainCfg && !chainCfg.settlementKey && !chainCfg.signerUrl) {
    throw new ChainCheckError(
      'SETTLEMENT_PRIVATE_KEY (or SETTLEMENT_PRIVATE_KEY_FILE) or SETTLEMENT_SIGNER_URL: workers sign, one is required',
    );
  }
  // DEPOSIT_XPUB hands out custodial addresses (src/config/deposit-xpub.ts); crediting and sweeping them needs the mnemonic.
  if (chainCfg?.depositXpub && !chainCfg.depositMnemonic) {
    throw new ChainCheckError(
      'DEPOSIT_MNEMONIC (or DEPOSIT_MNEMONIC_FILE): workers given DEPOSIT_XPUB need it, or deposits to the addresses handed out would be neither credited nor swept',
    );
  }
  const settlement = await openSettlement(rt.config, rt.orm.em.fork(), log);
  // Aborted first on close: a settlement waiting on the chain gives its job back instead of holding the close.
  const stopping = new AbortController();
  const deps: WorkerDeps = { rt, log, me, settlement, stopping: stopping.signal };
  // Short lock and stall intervals: a job of a crashed worker is picked up again within ~30 s.
  const common = { connection: queues.connection, lockDuration: 15_000, stalledInterval: 10_000, maxStalledCount: 5 };

  // Every scheduler (src/jobs/schedulers.ts), re-created whenever one goes missing (Redis restarted empty).
  const scanEveryMs = rt.config.chain?.depositScanEveryMs;
  const keeper = await startSchedulerKeeper(queues, log, SCHEDULER_CHECK_EVERY_MS, {
    'sweep-rfqs': rt.config.rfq.sweepEveryMs,
    'probe-price-sources': rt.config.prices.probeEveryMs,
    ...(scanEveryMs ? { 'scan-deposits': scanEveryMs, 'sweep-deposits': scanEveryMs, 'cold-sweep': scanEveryMs } : {}),
    ...(rt.config.chain ? { 'reconcile-chain': rt.config.chain.reconcileEveryMs } : {}),
  });
  const processors: Array<Processor<QueueNoun>> = [];
  const workers: Worker[] = [];
  const start = <Q extends QueueNoun>(queue: Q, spec: WorkerSpec<Q>) => {
    const processor = spec.processor(deps);
    processors.push(processor as Processor<QueueNoun>);
    // BullMQ hands over a Job of any name; the table's types say which names and payloads this queue carries.
    const worker = new queues.Worker(queues.queueName(queue), (job) => processor.process(job as JobOf<Q>), {
      ...common,
      ...spec.options,
      concurrency: spec.concurrency(queues.kind),
    });
    worker.on('failed', (job, err) =>
      log.warn({ queue: worker.name, job_id: job?.id, job_name: job?.name, attempts: job?.attemptsMade, err }, 'job failed'),
    );
    worker.on('error', (err) => log.error({ queue: worker.name, err }, 'worker error'));
    workers.push(worker);
  };
  for (const queue of Object.keys(WORKERS) as QueueNoun[]) start(queue, WORKERS[queue] as WorkerSpec<typeof queue>);
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  log.info({ queues: workers.map((w) => w.name), backend: queues.kind }, 'workers started');
  return {
    workerId: me.workerId,
    async close() {
      // Worker.close() waits for the jobs in progress to finish: nothing is left half-done.
      stopping.abort();
      await Promise.all(workers.map((w) => w.close()));
      await keeper.close();
      for (const p of processors) await p.close?.();
      await settlement.close?.();
      log.info('workers stopped');
    },
  };
}
