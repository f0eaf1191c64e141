// Long-poll waiters of `GET /v1/rfq/{rfq_id}?wait_ms=` (docs/trading.md, "The bus"). One bus subscription per process
// to `rfq.quote` and `rfq.closed` wakes the waiters of the RFQ a message names; a woken request re-reads
// the RFQ from the database (the bus only says "look again": a lost message costs a timeout, never a
// wrong answer). A waiter is registered BEFORE the request's first read, so a change that commits between
// that read and the wait still wakes it. Waiters are capped per process: past the cap a request answers
// at once (the client polls again) instead of holding memory and a socket. They are capped per user too
// (fair shares): one user holding its cap of long-polls is refused more (503 TOO_MANY_WAITERS) while
// every other user's long-polls wait as usual.
import type { Bus } from '../bus/bus.js';

export type WaitOutcome = 'changed' | 'timeout' | 'full' | 'user_full' | 'closed';

export interface RfqWaiter {
  /** Resolves at the first change of the RFQ since registration, after `ms`, at once when the cap was reached. */
  wait(ms: number): Promise<WaitOutcome>;
  /** Drops the waiter without waiting (the RFQ was already closed, or wait_ms is 0). */
  cancel(): void;
}

export interface RfqWaiters {
  /** `owner`: the user the waiter counts against (its per-user cap). */
  register(rfqId: string, owner: string): RfqWaiter;
  /** Waiters currently registered on this process. */
  size(): number;
  /** Unsubscribes and answers every waiter (`closed`), so shutdown never waits out a long-poll. */
  close(): void;
}

export const DEFAULT_MAX_WAITERS = 1000;
export const DEFAULT_MAX_WAITERS_PER_USER = 100;

interface Slot {
  changed: boolean;
  wake?: (o: WaitOutcome) => void;
}

/** The RFQ id a bus payload names (rfq.quote `{rfqId}`, rfq.closed `{frame: {rfq_id}}`), else undefined. */
export function rfqIdOf(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const p = payload as { rfqId?: unknown; frame?: { rfq_id?: unknown } };
  if (typeof p.rfqId === 'string') return p.rfqId;
  if (typeof p.frame?.rfq_id === 'string') return p.frame.rfq_id;
  return undefined;
}

export function createRfqWaiters(bus: Pick<Bus, 'subscribe'>, opts: { max?: number; maxPerUser?: number } = {}): RfqWaiters {
  const max = opts.max ?? DEFAULT_MAX_WAITERS;
  const maxPerUser = opts.maxPerUser ?? DEFAULT_MAX_WAITERS_PER_USER;
  const byRfq = new Map<string, Set<Slot>>();
  const perUser = new Map<string, number>();
  let count = 0;
  let closed = false;

  const drop = (rfqId: string, owner: string, slot: Slot) => {
    const set = byRfq.get(rfqId);
    if (!set?.delete(slot)) return;
    count -= 1;
    if (set.size === 0) byRfq.delete(rfqId);
    const n = (perUser.get(owner) ?? 1) - 1;
    if (n > 0) perUser.set(owner, n);
    else perUser.delete(owner);
  };
  const onMessage = (payload: unknown) => {
    const id = rfqIdOf(payload);
    const set = id === undefined ? undefined : byRfq.get(id);
    if (!set) return;
    for (const slot of set) {
      slot.changed = true;
      slot.wake?.('changed');
    }
  };
  const unsubscribe = [bus.subscribe('rfq.quote', onMessage), bus.subscribe('rfq.closed', onMessage)];

  const immediate = (outcome: WaitOutcome): RfqWaiter => ({ wait: () => Promise.resolve(outcome), cancel: () => {} });

  return {
    register(rfqId, owner) {
      if (closed) return immediate('closed');
      if ((perUser.get(owner) ?? 0) >= maxPerUser) return immediate('user_full');
      if (count >= max) return immediate('full');
      const slot: Slot = { changed: false };
      let set = byRfq.get(rfqId);
      if (!set) byRfq.set(rfqId, (set = new Set()));
      set.add(slot);
      count += 1;
      perUser.set(owner, (perUser.get(owner) ?? 0) + 1);
      return {
        wait(ms) {
          if (slot.changed) {
            drop(rfqId, owner, slot);
            return Promise.resolve('changed');
          }
          if (closed) return Promise.resolve('closed');
          return new Promise<WaitOutcome>((resolve) => {
            const timer = setTimeout(() => slot.wake?.('timeout'), ms);
            slot.wake = (o) => {
              clearTimeout(timer);
              slot.wake = undefined;
              drop(rfqId, owner, slot);
              resolve(o);
            };
          });
        },
        cancel: () => drop(rfqId, owner, slot),
      };
    },
    size: () => count,
    close() {
      closed = true;
      for (const u of unsubscribe) u();
      for (const set of [...byRfq.values()]) for (const slot of [...set]) slot.wake?.('closed');
      byRfq.clear();
      perUser.clear();
      count = 0;
    },
  };
}
