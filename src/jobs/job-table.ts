// The job table's types: for every queue, its job names and each job's payload. Producers (src/jobs/
// *-producer.ts) add through openQueue() and processors (workers/*.worker.ts) receive JobOf<queue>, so a
// producer and its processor agree on a payload at compile time; a job added here without a processor, or a
// processor reading a field its producer does not send, fails `tsc`.
import type { Job, JobsOptions, Queue } from 'bullmq';
import type { QueueBackend } from './queue-backend.js';
import {
  JOB,
  QUEUE,
  type QueueNoun,
  type ResolveContestJob,
  type ResolveWindowJob,
  type ScheduledJob,
  type SettleOperationJob,
} from './queues.js';

export interface JobPayloads {
  [QUEUE.system]: { [JOB.recordHeartbeat]: ScheduledJob };
  [QUEUE.marketWindows]: { [JOB.rollWindows]: ScheduledJob };
  [QUEUE.settlement]: { [JOB.settleOperation]: SettleOperationJob; [JOB.relayOutbox]: ScheduledJob };
  [QUEUE.idempotency]: { [JOB.pruneIdempotencyKeys]: ScheduledJob };
  [QUEUE.contests]: { [JOB.resolveContest]: ResolveContestJob; [JOB.relayResolutions]: ScheduledJob };
  [QUEUE.housekeeping]: { [JOB.pruneExpiredAuth]: ScheduledJob; [JOB.pruneUserEvents]: ScheduledJob };
  [QUEUE.marketResolution]: {
    [JOB.resolveWindow]: ResolveWindowJob;
    [JOB.relayWindowResolutions]: ScheduledJob;
    [JOB.probePriceSources]: ScheduledJob;
  };
  [QUEUE.rfq]: { [JOB.sweepRfqs]: ScheduledJob };
  [QUEUE.chainDeposits]: {
    [JOB.scanDeposits]: ScheduledJob;
    [JOB.sweepDeposits]: ScheduledJob;
    [JOB.coldSweep]: ScheduledJob;
    [JOB.reconcileChain]: ScheduledJob;
  };
}

export type JobName<Q extends QueueNoun> = keyof JobPayloads[Q] & string;
export type Payload<Q extends QueueNoun, N extends JobName<Q>> = JobPayloads[Q][N];

/** A job of queue Q: a union over its names, so `job.name === JOB.x` narrows `job.data` to x's payload. */
export type JobOf<Q extends QueueNoun> = { [N in JobName<Q>]: Job<Payload<Q, N>, unknown, N> }[JobName<Q>];

/** Names of the jobs of Q that a scheduler can add (payload: only the tick's time). */
export type ScheduledJobName<Q extends QueueNoun> = { [N in JobName<Q>]: Payload<Q, N> extends ScheduledJob ? N : never }[JobName<Q>];

/** A BullMQ queue whose add() pairs each job name with its payload. */
export interface TypedQueue<Q extends QueueNoun> extends Omit<Queue, 'add'> {
  add<N extends JobName<Q>>(name: N, data: Payload<Q, N>, opts?: JobsOptions): Promise<Job<Payload<Q, N>, unknown, N>>;
}

export function openQueue<Q extends QueueNoun>(backend: QueueBackend, queue: Q): TypedQueue<Q> {
  // The one cast of the table: BullMQ types a queue's name and data separately; TypedQueue pairs them.
  return new backend.Queue(backend.queueName(queue), { connection: backend.connection }) as unknown as TypedQueue<Q>;
}
