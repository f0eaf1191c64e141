// Requests that cannot complete without the queue (createDeposit, createWithdrawal: their settlement job) wait
// for it at most QUEUE_WAIT_MS, then answer 503 UNAVAILABLE with Retry-After, before anything is claimed
// or written, so the same request with the same idempotency key is safe to send again.
import { AppError } from '../domain/errors.js';
import type { QueueBackend } from '../jobs/queue-backend.js';
import type { Handlers } from './handler.js';

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
