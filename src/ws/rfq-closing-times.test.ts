import { describe, expect, it } from 'vitest';
import { RfqClosingTimes } from './rfq-closing-times.js';

const frame = (id: string, fill_mode: 'best' | 'manual', quote_deadline_ms: number, expires_at_ms: number) => ({
  rfq_id: id,
  fill_mode,
  quote_deadline_ms,
  expires_at_ms,
});

describe('RfqClosingTimes', () => {
  it('best mode closes to quotes at its quote deadline (or its expiry, if earlier), manual mode at its expiry', () => {
    const c = new RfqClosingTimes();
    c.opened(frame('A-1', 'best', 1_250, 9_000), 1_000);
    c.opened(frame('b-2', 'manual', 1_250, 9_000), 1_000);
    c.opened(frame('c-3', 'best', 9_500, 9_000), 1_000);
    expect([c.closesAt('a-1'), c.closesAt('B-2'), c.closesAt('c-3'), c.closesAt('d-4')]).toEqual([1_250, 9_000, 9_000, undefined]);
  });

  it('forgets an RFQ on rfq.closed, the oldest past its bound, and expired ones as new ones arrive', () => {
    const c = new RfqClosingTimes(3);
    for (const id of ['a', 'b', 'c']) c.opened(frame(id, 'best', 100, 200), 0);
    c.closed('B');
    expect(c.closesAt('b')).toBeUndefined();
    c.opened(frame('d', 'best', 100, 200), 0);
    c.opened(frame('e', 'best', 100, 200), 0); // full: 'a', the oldest, goes
    expect(['a', 'c', 'd', 'e'].map((id) => c.closesAt(id) !== undefined)).toEqual([false, true, true, true]);
    const many = new RfqClosingTimes();
    for (let i = 0; i < 1_023; i++) many.opened(frame(`old-${i}`, 'best', 100, 200), 0);
    many.opened(frame('new', 'best', 10_100, 10_200), 10_000); // the 1,024th: the expired ones are pruned
    expect(many.size).toBe(1);
  });
});
