// A deposit or withdrawal request waits (DEPOSIT_SYNC_WAIT_MS at most) for its settlement by the worker.
// The worker publishes `operation.settled {operation_id}` after the settlement commits; each API process
// keeps one subscription and wakes the waiting request at once, instead of polling the database. The bus
// is at-most-once, so a waiter also re-reads the row on a slow fallback tick: a lost message costs at most
// FALLBACK_POLL_MS of latency, never a wrong answer (the database is read for the answer either way).
import type { Bus } from '../bus/bus.js';

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

export function createOperationWaiter(bus: Bus): OperationWaiter {
  const waiting = new Map<string, Set<() => void>>();
  const off = bus.subscribe('operation.settled', (payload) => {
    const id = (payload as { operation_id?: unknown }).operation_id;
    if (typeof id !== 'string') return;
    for (const wake of waiting.get(id) ?? []) wake();
  });
  let count = 0;
  const register = (id: string, wake: () => void): (() => void) => {
    if (count >= MAX_OPERATION_WAITERS) return () => undefined;
    const set = waiting.get(id) ?? new Set();
    waiting.set(id, set);
    set.add(wake);
    count += 1;
    return () => {
      if (!set.delete(wake)) return;
      count -= 1;
      if (!set.size && waiting.get(id) === set) waiting.delete(id);
    };
  };
  return {
    async waitFor(operationId, deadlineMs, read, isFinal, first) {
      for (let known = first; ; known = undefined) {
        // Registered before the read: a settlement committed between the read and the wait still wakes us.
        let wake!: () => void;
        const woken = new Promise<void>((resolve) => (wake = resolve));
        const unregister = register(operationId, wake);
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
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(FALLBACK_POLL_MS, left))))]);
          clearTimeout(timer);
        } finally {
          unregister();
        }
      }
    },
    close: off,
  };
}
