// What one row of the worker table (workers/table.ts) declares for its queue: how many jobs run at once,
// extra BullMQ options, and the processor, built once per worker process from the runtime. The processor
// receives JobOf<queue> (src/jobs/job-table.ts): a union over the queue's job names and payloads.
import type { WorkerOptions } from 'bullmq';
import type { Runtime } from '../src/runtime.js';
import type { Logger } from '../src/logger.js';
import type { WorkerIdentity } from '../src/domain/heartbeats.js';
import type { JobOf } from '../src/jobs/job-table.js';
import type { QueueBackend } from '../src/jobs/queue-backend.js';
import type { QueueNoun } from '../src/jobs/queues.js';
import type { SettlementAdapter } from '../src/domain/settlement/adapter.js';

export interface WorkerDeps {
  rt: Runtime;
  log: Logger;
  me: WorkerIdentity;
  /** SETTLEMENT_MODE's adapter, opened (and, onchain, checked) once per worker process. */
  settlement: SettlementAdapter;
  /** Aborted when the process starts closing: long waits (a settlement waiting on the chain) give up. */
  stopping: AbortSignal;
}

export interface Processor<Q extends QueueNoun> {
  process(job: JobOf<Q>): Promise<unknown>;
  /** Closes what the processor opened (a producer), after its worker has finished its jobs. */
  close?(): Promise<void>;
}

export interface WorkerSpec<Q extends QueueNoun> {
  /** Jobs at once in one worker process (PGlite is one connection: its deployments run them one by one). */
  concurrency(kind: QueueBackend['kind']): number;
  options?: Partial<WorkerOptions>;
  processor(deps: WorkerDeps): Processor<Q>;
}

/** One processor per queue: a queue added to QUEUE without a row here fails `tsc`. */
export type WorkerTable = { [Q in QueueNoun]: WorkerSpec<Q> };
