import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLocalBus } from '../bus/local.js';
import { createRfqWaiters, rfqIdOf } from './rfq-wait.js';

const quoteEvent = (rfqId: string) => ({ topic: 'rfq.quote', rfqId });
const closedEvent = (rfqId: string) => ({
  topic: 'rfq.closed',
  frame: { type: 'rfq_closed', rfq_id: rfqId, status: 'filled', closed_at_ms: 1 },
  route: { assets: [], durations: [], legs: [] },
});

describe('RFQ long-poll waiters', () => {
  afterEach(() => vi.useRealTimers());

  it('a quote or a close of that RFQ wakes its waiters; other RFQs do not', async () => {
    const bus = createLocalBus();
    const waiters = createRfqWaiters(bus);
    const a = waiters.register('a', 'u');
    const b = waiters.register('b', 'u');
    const pa = a.wait(10_000);
    const pb = b.wait(10_000);
    await bus.publish('rfq.quote', quoteEvent('a'));
    expect(await pa).toBe('changed');
    expect(waiters.size()).toBe(1);
    await bus.publish('rfq.closed', closedEvent('b'));
    expect(await pb).toBe('changed');
    expect(waiters.size()).toBe(0);
    waiters.close();
    await bus.close();
  });

  it('a change between registration and wait is not lost (the waiter registers before the first read)', async () => {
    const bus = createLocalBus();
    const waiters = createRfqWaiters(bus);
    const w = waiters.register('a', 'u');
    await bus.publish('rfq.quote', quoteEvent('a')); // lands while the handler reads the RFQ
    expect(await w.wait(10_000)).toBe('changed');
    expect(waiters.size()).toBe(0);
    waiters.close();
  });

  it('times out when nothing changes, and forgets the waiter', async () => {
    vi.useFakeTimers();
    const waiters = createRfqWaiters(createLocalBus());
    const p = waiters.register('a', 'u').wait(5_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(waiters.size()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await p).toBe('timeout');
    expect(waiters.size()).toBe(0);
  });

  it('past the cap a request answers at once; a freed slot is usable again', async () => {
    const waiters = createRfqWaiters(createLocalBus(), { max: 2 });
    const first = waiters.register('a', 'u');
    waiters.register('b', 'u');
    expect(await waiters.register('c', 'u').wait(10_000)).toBe('full');
    first.cancel();
    expect(waiters.size()).toBe(1);
    const again = waiters.register('c', 'u');
    expect(waiters.size()).toBe(2);
    again.cancel();
    waiters.close();
  });

  it("past a user's cap that user's request is refused (user_full) while another user's waits and wakes", async () => {
    const bus = createLocalBus();
    const waiters = createRfqWaiters(bus, { max: 10, maxPerUser: 3 });
    const held = [1, 2, 3].map(() => waiters.register('a', 'hog'));
    expect(await waiters.register('a', 'hog').wait(10_000)).toBe('user_full');
    const other = waiters.register('b', 'fair').wait(10_000);
    await bus.publish('rfq.quote', quoteEvent('b'));
    expect(await other).toBe('changed');
    held[0]!.cancel();
    const again = waiters.register('a', 'hog');
    expect(waiters.size()).toBe(3);
    for (const w of [...held, again]) w.cancel();
    expect(waiters.size()).toBe(0);
    waiters.close();
  });

  it('close answers every pending waiter and stops listening', async () => {
    const bus = createLocalBus();
    const waiters = createRfqWaiters(bus);
    const p = waiters.register('a', 'u').wait(10_000);
    waiters.close();
    expect(await p).toBe('closed');
    expect(await waiters.register('a', 'u').wait(10_000)).toBe('closed');
    expect(waiters.size()).toBe(0);
  });

  it('reads the RFQ id of both event shapes and ignores anything else', () => {
    expect(rfqIdOf(quoteEvent('x'))).toBe('x');
    expect(rfqIdOf(closedEvent('y'))).toBe('y');
    expect(rfqIdOf(null)).toBeUndefined();
    expect(rfqIdOf({ frame: { rfq_id: 3 } })).toBeUndefined();
  });
});
