// Requests that cannot complete without the queue (createDeposit, createWithdrawal: their settlement job) wait
// for it at most QUEUE_WAIT_MS, then answer 503 UNAVAILABLE with Retry-After, before anything is claimed
// or written, so the same request with the same idempotency key is safe to send again. Enqueues after a
// commit are bounded too: a lost enqueue is the outbox relay's, never a request hanging until Redis returns.
import { AppError } from '../domain/errors.js';
import type { Handlers } from '../http/handler.js';
import type { QueueBackend } from './queue-backend.js';

export class QueueUnavailable extends AppError {
  constructor(waitMs: number, retryAfterSeconds: number) {
    super(
      503,
      'UNAVAILABLE',
      `the job queue did not answer within ${waitMs} ms; nothing was done: retry with the same idempotency key`,
      { dependency: 'queue' },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

export function requireQueue(handlers: Handlers, queues: QueueBackend, waitMs: number): Handlers {
  const gate = async () => {
    if (!(await queues.waitAvailable(waitMs))) throw new QueueUnavailable(waitMs, retryAfterSeconds(waitMs));
  };
  const { createDeposit, createWithdrawal } = handlers;
  return {
    ...handlers,
    createDeposit: async (req, ctx) => (await gate(), createDeposit(req, ctx)),
    createWithdrawal: async (req, ctx) => (await gate(), createWithdrawal(req, ctx)),
  };
}

/** `p`, or a rejection after `ms` (the operation itself goes on in the background). */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  p.catch(() => undefined); // a late failure after the deadline is not an unhandled rejection
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** The same producer whose enqueue() gives up after `ms` (the caller leaves the job to a relay). */
export function boundEnqueue<P extends { enqueue(id: string): Promise<void> }>(producer: P, ms: number): P {
  return { ...producer, enqueue: (id: string) => withDeadline(producer.enqueue(id), ms, 'enqueue') };
}
