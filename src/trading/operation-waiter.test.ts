import { describe, expect, it } from 'vitest';
import { createLocalBus } from '../bus/local.js';
import { createOperationWaiter, FALLBACK_POLL_MS } from './operation-waiter.js';

/** An operation's status as the database would answer it, counting the reads. */
function row() {
  const r = { status: 'pending', reads: 0, read: async () => (r.reads++, r.status) };
  return r;
}

describe('operation waiter', () => {
  it('wakes on operation.settled for its id, not on another id, and reads the row again', async () => {
    const bus = createLocalBus();
    const waiter = createOperationWaiter(bus);
    const op = row();
    const done = waiter.waitFor('op-1', Date.now() + 60_000, op.read, (s) => s !== 'pending');
    await new Promise((r) => setTimeout(r, 5));
    await bus.publish('operation.settled', { operation_id: 'op-2' });
    op.status = 'success';
    await bus.publish('operation.settled', { operation_id: 'op-1' });
    expect(await done).toBe('success');
    // The event, not the fallback tick (which would need FALLBACK_POLL_MS), woke it: one read before, one after.
    expect(op.reads).toBe(2);
    waiter.close();
    await bus.close();
  });

  it('a lost message costs only the fallback tick, and the deadline answers what was read last', async () => {
    const bus = createLocalBus();
    const waiter = createOperationWaiter(bus);
    let reads = 0;
    const started = Date.now();
    const v = await waiter.waitFor(
      'op-3',
      Date.now() + FALLBACK_POLL_MS * 2 + 50,
      async () => ++reads,
      (n) => n >= 3,
    );
    expect(v).toBe(3); // settled (n >= 3) on the second fallback tick, with no message at all
    expect(Date.now() - started).toBeGreaterThanOrEqual(FALLBACK_POLL_MS * 2 - 5);
    const timedOut = await waiter.waitFor(
      'op-4',
      Date.now() + 20,
      async () => 'pending',
      (s) => s !== 'pending',
    );
    expect(timedOut).toBe('pending');
    waiter.close();
    await bus.close();
  });

  it('with the value just written: registers, then starts the settlement, and reads only after the wake', async () => {
    const bus = createLocalBus();
    const waiter = createOperationWaiter(bus);
    const op = row();
    // The settlement completes inside start(), before waitFor could have read anything: the message still
    // wakes it, because it registered first.
    const start = async () => {
      op.status = 'success';
      await bus.publish('operation.settled', { operation_id: 'op-5' });
    };
    const started = Date.now();
    expect(await waiter.waitFor('op-5', Date.now() + 60_000, op.read, (s) => s !== 'pending', { value: 'pending', start })).toBe('success');
    expect(op.reads).toBe(1);
    expect(Date.now() - started).toBeLessThan(FALLBACK_POLL_MS);
    waiter.close();
    await bus.close();
  });
});
