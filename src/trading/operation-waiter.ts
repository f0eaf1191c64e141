// A deposit or withdrawal request waits (DEPOSIT_SYNC_WAIT_MS at most) for its settlement by the worker, on the
// orchestration folder's one waiter abstraction (src/trading/waiters.ts), keyed by operation id and woken by
// `operation.settled {operation_id}`, which the money lifecycle publishes after a settlement commits
// (src/trading/money-lifecycle.ts). The bus is at-most-once, so a waiter also re-reads the row on a slow fallback
// tick: a lost message costs at most FALLBACK_POLL_MS of latency, never a wrong answer (the database is read for
// the answer either way). Past MAX_OPERATION_WAITERS on a process a request polls on that tick instead.
import type { Bus } from '../bus/bus.js';
import { createWaiters } from './waiters.js';

export const FALLBACK_POLL_MS = 250;
/** Waiters per process beyond which a request polls instead of registering (memory bound). */
export const MAX_OPERATION_WAITERS = 10_000;

export interface OperationWaiter {
  /**
   * Resolves when `isFinal()` is true (checked now, on each `operation.settled` for the id, and every
   * FALLBACK_POLL_MS) or at `deadlineMs`; returns the last value read.
   *
   * `first`: the operation as its request just wrote it (pending), and what starts its settlement (the
   * enqueue). The waiter registers, then calls `start()`, and takes `value` as its first read: nothing
   * could settle the operation before its job existed, so the read that would follow registration is
   * skipped (a settlement by the outbox relay in between only costs FALLBACK_POLL_MS of latency).
   */
  waitFor<T>(
    operationId: string,
    deadlineMs: number,
    read: () => Promise<T>,
    isFinal: (v: T) => boolean,
    first?: { value: T; start: () => Promise<void> },
  ): Promise<T>;
  close(): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createOperationWaiter(bus: Pick<Bus, 'subscribe'>): OperationWaiter {
  const waiters = createWaiters(bus, {
    topics: ['operation.settled'],
    keyOf: (payload) => {
      const id = (payload as { operation_id?: unknown } | null)?.operation_id;
      return typeof id === 'string' ? id : undefined;
    },
    max: MAX_OPERATION_WAITERS,
    // Every wait counts against the process's cap only: a request waits for its own operation.
    maxPerOwner: MAX_OPERATION_WAITERS,
  });
  return {
    async waitFor(operationId, deadlineMs, read, isFinal, first) {
      for (let known = first; ; known = undefined) {
        // Registered before the read: a settlement committed between the read and the wait still wakes us.
        const waiter = waiters.register(operationId, 'operation');
        try {
          let value;
          if (known) {
            await known.start();
            value = known.value;
          } else {
            value = await read();
          }
          const left = deadlineMs - Date.now();
          if (isFinal(value) || left <= 0) return value;
          const tick = Math.min(FALLBACK_POLL_MS, left);
          const outcome = await waiter.wait(tick);
          // Past the cap, or after close(): no message can wake it; the fallback tick still does.
          if (outcome !== 'changed' && outcome !== 'timeout') await sleep(tick);
        } finally {
          waiter.cancel();
        }
      }
    },
    close: () => waiters.close(),
  };
}
