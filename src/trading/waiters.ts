// The one waiter abstraction of the orchestration folder: a request waits for a change of one thing (an RFQ, a
// deposit or withdrawal) that another process may make, woken by the bus instead of polling the database. One bus
// subscription per process and topic list wakes the waiters of the key a message names; the woken request
// re-reads its row (the bus only says "look again": at most once, so a lost message costs the waiter's timeout or
// fallback tick, never a wrong answer). A waiter is registered BEFORE the request's first read, so a change that
// commits between that read and the wait still wakes it. Waiters are capped per process (past the cap a request
// answers or polls instead of holding memory) and per owner (fair shares). Used by the RFQ long-polls
// (src/trading/rfq-wait.ts) and the deposit and withdrawal waits (src/trading/operation-waiter.ts).
import type { Bus, BusTopic } from '../bus/bus.js';

export type WaitOutcome = 'changed' | 'timeout' | 'full' | 'user_full' | 'closed';

export interface Waiter {
  /** Resolves at the first change since registration, after `ms`, or at once when a cap was reached or the waiters closed. */
  wait(ms: number): Promise<WaitOutcome>;
  /** Drops the waiter without waiting (idempotent; also after wait()). */
  cancel(): void;
}

export interface Waiters {
  /** `owner`: whom the waiter counts against (its per-owner cap). */
  register(key: string, owner: string): Waiter;
  /** Waiters currently registered on this process. */
  size(): number;
  /** Unsubscribes and answers every waiter (`closed`), so shutdown never waits out a wait. */
  close(): void;
}

export interface WaitersOptions {
  /** The topics whose messages wake the waiters of the key `keyOf` finds in them. */
  topics: readonly BusTopic[];
  keyOf: (payload: unknown) => string | undefined;
  max: number;
  maxPerOwner: number;
}

interface Slot {
  changed: boolean;
  wake?: (o: WaitOutcome) => void;
}

export function createWaiters(bus: Pick<Bus, 'subscribe'>, opts: WaitersOptions): Waiters {
  const byKey = new Map<string, Set<Slot>>();
  const perOwner = new Map<string, number>();
  let count = 0;
  let closed = false;

  const drop = (key: string, owner: string, slot: Slot) => {
    const set = byKey.get(key);
    if (!set?.delete(slot)) return;
    count -= 1;
    if (set.size === 0) byKey.delete(key);
    const n = (perOwner.get(owner) ?? 1) - 1;
    if (n > 0) perOwner.set(owner, n);
    else perOwner.delete(owner);
  };
  const onMessage = (payload: unknown) => {
    const key = opts.keyOf(payload);
    const set = key === undefined ? undefined : byKey.get(key);
    if (!set) return;
    for (const slot of set) {
      slot.changed = true;
      slot.wake?.('changed');
    }
  };
  const unsubscribe = opts.topics.map((t) => bus.subscribe(t, onMessage));

  const immediate = (outcome: WaitOutcome): Waiter => ({ wait: () => Promise.resolve(outcome), cancel: () => {} });

  return {
    register(key, owner) {
      if (closed) return immediate('closed');
      if ((perOwner.get(owner) ?? 0) >= opts.maxPerOwner) return immediate('user_full');
      if (count >= opts.max) return immediate('full');
      const slot: Slot = { changed: false };
      let set = byKey.get(key);
      if (!set) byKey.set(key, (set = new Set()));
      set.add(slot);
      count += 1;
      perOwner.set(owner, (perOwner.get(owner) ?? 0) + 1);
      return {
        wait(ms) {
          if (slot.changed) {
            drop(key, owner, slot);
            return Promise.resolve('changed');
          }
          if (closed) return Promise.resolve('closed');
          return new Promise<WaitOutcome>((resolve) => {
            const timer = setTimeout(() => slot.wake?.('timeout'), ms);
            slot.wake = (o) => {
              clearTimeout(timer);
              slot.wake = undefined;
              drop(key, owner, slot);
              resolve(o);
            };
          });
        },
        cancel: () => drop(key, owner, slot),
      };
    },
    size: () => count,
    close() {
      closed = true;
      for (const u of unsubscribe) u();
      for (const set of [...byKey.values()]) for (const slot of [...set]) slot.wake?.('closed');
      byKey.clear();
      perOwner.clear();
      count = 0;
    },
  };
}
