import { afterEach, describe, expect, it } from 'vitest';
import { createLocalBus } from '../bus/local.js';
import type { LiveSession } from '../domain/identity/sessions.js';
import { publishSessionChange } from '../bus/session-events.js';
import { createSessionCache, type SessionCache } from './session-cache.js';

const user = (sessionId: string, userId: string, expiresAtMs = 10_000_000): LiveSession => ({
  principal: { kind: 'user', sessionId, userId, address: '0x00000000000000000000000000000000000000aa' },
  expiresAtMs,
});
const maker = (sessionId: string, wallet: string): LiveSession => ({
  principal: { kind: 'market_maker', sessionId, walletAddress: wallet },
  expiresAtMs: 10_000_000,
});
const silent = { warn: () => undefined };

let cache: SessionCache | undefined;
afterEach(() => cache?.close());

describe('session cache', () => {
  it('remembers a live session for the TTL, and never past the session expiry', () => {
    const bus = createLocalBus();
    cache = createSessionCache(1000, bus, silent);
    cache.set('a', user('s1', 'u1'), cache.generation, 5000);
    expect(cache.get('a', 5999)?.kind).toBe('user');
    expect(cache.get('a', 6000)).toBeUndefined();
    cache.set('b', user('s2', 'u2', 5500), cache.generation, 5000);
    expect(cache.get('b', 5499)).toBeDefined();
    expect(cache.get('b', 5500)).toBeUndefined();
    cache.set('c', user('s3', 'u3', 4000), cache.generation, 5000); // already expired: not kept
    expect(cache.size).toBe(0);
  });

  it('hands out a frozen copy, so no request can change what the next one is given', () => {
    cache = createSessionCache(1000, createLocalBus(), silent);
    const live = user('s1', 'u1');
    cache.set('a', live, cache.generation, 0);
    const got = cache.get('a', 1)!;
    expect(Object.isFrozen(got)).toBe(true);
    expect(got).toEqual(live.principal);
  });

  it('drops what a sessions.changed or mm.removed message names, and only that', async () => {
    const bus = createLocalBus();
    cache = createSessionCache(60_000, bus, silent);
    const g = cache.generation;
    cache.set('a', user('s1', 'u1'), g, 0);
    cache.set('b', user('s2', 'u1'), g, 0);
    cache.set('c', user('s3', 'u2'), g, 0);
    cache.set('m', maker('s4', '0xAbC0000000000000000000000000000000000001'), g, 0);
    await publishSessionChange(bus, { session_id: 's3' });
    expect(['a', 'b', 'c', 'm'].map((k) => cache!.get(k, 1) !== undefined)).toEqual([true, true, false, true]);
    await publishSessionChange(bus, { user_id: 'u1' });
    expect(['a', 'b', 'm'].map((k) => cache!.get(k, 1) !== undefined)).toEqual([false, false, true]);
    await bus.publish('mm.removed', { wallet: '0xabc0000000000000000000000000000000000001' });
    expect(cache.get('m', 1)).toBeUndefined();
  });

  it('does not remember a lookup that raced a change (it may have read the session before a logout committed)', async () => {
    const bus = createLocalBus();
    cache = createSessionCache(60_000, bus, silent);
    const before = cache.generation;
    await publishSessionChange(bus, { session_id: 's1' }); // arrives while the lookup is in flight
    cache.set('a', user('s1', 'u1'), before, 0);
    expect(cache.get('a', 1)).toBeUndefined();
    cache.set('a', user('s1', 'u1'), cache.generation, 0);
    expect(cache.get('a', 1)).toBeDefined();
  });

  it('a malformed message drops everything; SESSION_CACHE_MS=0 remembers nothing', async () => {
    const bus = createLocalBus();
    const warned: unknown[] = [];
    cache = createSessionCache(60_000, bus, { warn: (o) => void warned.push(o) });
    cache.set('a', user('s1', 'u1'), cache.generation, 0);
    await bus.publish('sessions.changed', { what: 'nonsense' });
    expect(cache.size).toBe(0);
    expect(warned).toHaveLength(1);
    cache.close();
    cache = createSessionCache(0, bus, silent);
    cache.set('a', user('s1', 'u1'), cache.generation, 0);
    expect(cache.get('a', 1)).toBeUndefined();
  });
});
