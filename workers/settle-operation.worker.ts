// Processor of the `settlement` queue.
//   settle-operation (jobId = operation id): settles one deposit or withdrawal. The jobs this process holds
//     are settled together (src/jobs/batcher.ts): the first alone, then every job that arrived meanwhile in
//     ONE transaction (settleOperations, at most SETTLE_BATCH_MAX), so the clearing account's lock and the
//     commit are taken once per batch, not once per operation; a batch that fails is rerun operation by
//     operation. Idempotent: settleOperations() locks the operations and leaves those no longer pending,
//     so a rerun after a crash (stalled job) or a duplicate changes nothing. Retried with exponential
//     backoff; an operation id that does not exist is an impossible state: UnrecoverableError, no retry.
//     The batch is the money lifecycle's settle step (src/trading/money-lifecycle.ts), which publishes
//     `operation.settled` after it commits: this worker never publishes. A withdrawal held for an operator's
//     review (pending_reason review) is never sent: it has no outbox row and no job, and a job that reaches
//     one anyway is answered `held` before anything is signed.
//   relay-outbox (scheduled): re-enqueues operations whose outbox row is older than RELAY_AFTER_MS
//     (committed, then the API crashed before enqueueing; or a job that used every attempt).
import { UnrecoverableError } from 'bullmq';
import { findOperation, staleOutbox } from '../src/domain/money/operations.js';
import { createBatcher } from '../src/jobs/batcher.js';
import { createMoneySettler } from '../src/trading/money-lifecycle.js';
import { createSettlementProducer } from '../src/jobs/settlement-producer.js';
import { JOB, RELAY_AFTER_MS, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

/** The most operations settled in one transaction. */
export const SETTLE_BATCH_MAX = 64;

export const settlementWorker: WorkerSpec<typeof QUEUE.settlement> = {
  // Jobs held at once: what a batch can gather (one transaction at a time per process). BullMQ's PostgreSQL
  // backend keeps its earlier 8 (its job fetches are database statements); embedded PGlite runs one at a time.
  concurrency: (kind) => (kind === 'redis' ? SETTLE_BATCH_MAX : kind === 'postgres' ? 8 : 1),
  processor: ({ rt, log, settlement: adapter, stopping }) => {
    const { orm } = rt;
    const producer = createSettlementProducer(rt.queues);
    const money = createMoneySettler({ forkDb: () => orm.em.fork(), bus: rt.bus, settlement: adapter, log });
    const batcher = createBatcher((ids) => money.settle(ids), SETTLE_BATCH_MAX);
    return {
      async process(job) {
        if (job.name === JOB.relayOutbox) {
          const ids = await staleOutbox(orm.em.fork(), RELAY_AFTER_MS);
          for (const id of ids) await producer.ensure(id);
          if (ids.length) log.info({ operations: ids.length }, 'outbox relay re-enqueued pending operations');
          return { relayed: ids.length };
        }
        const { operation_id } = job.data;
        // Held for an operator's review: nothing is signed or sent (its approval enqueues it again). Such an
        // operation has no job in the first place; this guards the chain step (demo settlement has none, and
        // settleOperations leaves held operations alone).
        if (adapter.advance && (await findOperation(orm.em.fork(), operation_id))?.pendingReason === 'review') return { outcome: 'held' };
        // Onchain: the transaction is signed, sent and confirmed first, outside any transaction (src/domain/settlement/onchain/sender.ts).
        const advanced = adapter.advance ? await adapter.advance(orm.em.fork(), operation_id, stopping) : 'recorded';
        const outcome = await batcher.submit(operation_id);
        if (outcome === 'missing') throw new UnrecoverableError(`operation ${operation_id} does not exist`);
        if (outcome === 'held') return { outcome };
        // In an operator's review (the chain could not prove its outcome), or waiting long (funds, gas, the fee
        // cap, a paused token): not a failure of the job; the outbox relay hands it back later (its due_at).
        if (outcome === 'pending' && (advanced === 'needs_review' || advanced === 'deferred')) return { outcome: advanced };
        if (outcome === 'pending')
          throw new Error(`operation ${operation_id}: no chain outcome yet (the process is closing, or the node is away); retried`);
        log.debug({ job_id: job.id, operation_id, outcome }, 'operation settled');
        return { outcome };
      },
      close: () => producer.close(),
    };
  },
};
