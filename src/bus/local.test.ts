import { describe, expect, it } from 'vitest';
import { BusPayloadTooLarge, MAX_BUS_MESSAGE_BYTES, type BusMessageMeta } from './bus.js';
import { createLocalBus } from './local.js';

describe('in-process bus (embedded)', () => {
  it('delivers synchronously to subscribers of the topic only, in order, as parsed JSON', async () => {
    const bus = createLocalBus();
    const got: Array<[unknown, BusMessageMeta]> = [];
    const other: unknown[] = [];
    bus.subscribe('rfq.open', (p, m) => got.push([p, m]));
    bus.subscribe('rfq.closed', (p) => other.push(p));
    const sent = { rfq_id: 'r1', at: new Date(0) };
    const pending = bus.publish('rfq.open', sent);
    expect(got).toHaveLength(1); // before the promise resolves
    await pending;
    await bus.publish('rfq.open', { rfq_id: 'r2' });
    expect(got.map(([p]) => p)).toEqual([{ rfq_id: 'r1', at: '1970-01-01T00:00:00.000Z' }, { rfq_id: 'r2' }]);
    expect(got[0]![1]).toEqual({ origin: bus.instanceId, local: true });
    expect(got[0]![0]).not.toBe(sent);
    expect(other).toEqual([]);
    await bus.close();
  });

  it('unsubscribe stops delivery; a throwing handler is reported and does not stop the others', async () => {
    const errors: string[] = [];
    const bus = createLocalBus({ onError: (_e, ctx) => errors.push(ctx) });
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = bus.subscribe('mm.removed', (p) => a.push(p));
    bus.subscribe('mm.removed', () => {
      throw new Error('boom');
    });
    bus.subscribe('mm.removed', (p) => b.push(p));
    await bus.publish('mm.removed', { wallet: '0x1' });
    offA();
    await bus.publish('mm.removed', { wallet: '0x2' });
    expect(a).toEqual([{ wallet: '0x1' }]);
    expect(b).toEqual([{ wallet: '0x1' }, { wallet: '0x2' }]);
    expect(errors).toEqual(['bus handler for mm.removed', 'bus handler for mm.removed']);
    await bus.close();
  });

  it('refuses an oversized payload, an unknown topic and use after close', async () => {
    const bus = createLocalBus();
    const got: unknown[] = [];
    bus.subscribe('mm.event', (p) => got.push(p));
    await expect(bus.publish('mm.event', { blob: 'x'.repeat(MAX_BUS_MESSAGE_BYTES) })).rejects.toBeInstanceOf(BusPayloadTooLarge);
    // The envelope counts: a payload just under the limit with its envelope fits.
    await bus.publish('mm.event', { blob: 'x'.repeat(MAX_BUS_MESSAGE_BYTES - 100) });
    await expect(bus.publish('nope' as never, {})).rejects.toThrow(/unknown bus topic/);
    expect(got).toHaveLength(1);
    await bus.ping();
    await bus.close();
    await expect(bus.ping()).rejects.toThrow(/closed/);
    await expect(bus.publish('mm.event', {})).rejects.toThrow(/closed/);
  });
});
