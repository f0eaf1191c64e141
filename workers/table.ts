// The worker table: queue -> processor, concurrency and options. Job names and payloads per queue:
// src/jobs/job-table.ts; schedulers: src/jobs/schedulers.ts. Rows start in this order (workers/start.ts).
import { QUEUE } from '../src/jobs/queues.js';
import { chainDepositsWorker } from './chain-deposits.worker.js';
import { heartbeatWorker } from './heartbeat.worker.js';
import { housekeepingWorker } from './housekeeping.worker.js';
import { marketWindowsWorker } from './market-windows.worker.js';
import { pruneIdempotencyWorker } from './prune-idempotency.worker.js';
import { contestsWorker } from './resolve-contest.worker.js';
import { resolveWindowWorker } from './resolve-window.worker.js';
import { settlementWorker } from './settle-operation.worker.js';
import { sweepRfqsWorker } from './sweep-rfqs.worker.js';
import type { WorkerTable } from './worker-spec.js';

export const WORKERS: WorkerTable = {
  [QUEUE.system]: heartbeatWorker,
  [QUEUE.housekeeping]: housekeepingWorker,
  [QUEUE.marketWindows]: marketWindowsWorker,
  [QUEUE.settlement]: settlementWorker,
  [QUEUE.idempotency]: pruneIdempotencyWorker,
  [QUEUE.contests]: contestsWorker,
  [QUEUE.marketResolution]: resolveWindowWorker,
  [QUEUE.rfq]: sweepRfqsWorker,
  [QUEUE.chainDeposits]: chainDepositsWorker,
};
