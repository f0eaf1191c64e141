// The TCP connection cap per client (src/http/connection-limits.ts) counts IPv6 peers by their /56, as the
// HTTP rate limit does: a host taking a new address per connection is one client. A plain emitter stands in
// for the server (the real server is in connection-limits.int.test.ts; loopback offers one IPv6 address).
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { limitConnections } from './connection-limits.js';

class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(readonly remoteAddress: string) {
    super();
  }
  setTimeout() {
    return this;
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

function harness(maxPerIp: number, trusted: string[] = []) {
  const server = new EventEmitter() as unknown as Server;
  const limiter = limitConnections(
    server,
    { maxPerIp, maxTotal: 0, silentTimeoutMs: 60_000, trustedPeer: (a) => trusted.includes(a) },
    createLogger('silent'),
    null,
  );
  const connect = (address: string) => {
    const s = new FakeSocket(address);
    server.emit('connection', s as unknown as Socket);
    // A request in progress: the connection is busy, so a new one past the cap cannot shed it.
    server.emit('request', { socket: s }, new EventEmitter());
    return s;
  };
  return { limiter, connect };
}

describe('HTTP_MAX_CONNECTIONS_PER_IP by network', () => {
  it('IPv6 addresses of one /56 share the cap; the next /56 and IPv4 addresses have their own', () => {
    const { limiter, connect } = harness(3);
    const same = ['2001:db8:0:1::1', '2001:db8:0:1::2', '2001:db8:0:2::3', '2001:db8:0:ff::4'].map(connect);
    expect(same.map((s) => s.destroyed)).toEqual([false, false, false, true]);
    expect(connect('2001:db8:0:100::1').destroyed).toBe(false);
    expect([connect('10.0.0.1'), connect('10.0.0.2')].map((s) => s.destroyed)).toEqual([false, false]);
    expect(limiter.refused()).toBe(1);
    // A closed connection gives its network's slot back.
    same[0]!.destroy();
    expect(connect('2001:db8:0:3::5').destroyed).toBe(false);
  });

  it("a trusted proxy stays exempt, by its own address, and does not use up its neighbours' cap", () => {
    const { connect } = harness(1, ['fd00::1']);
    expect(['fd00::1', 'fd00::1', 'fd00::1'].map(connect).map((s) => s.destroyed)).toEqual([false, false, false]);
    expect(['fd00::2', 'fd00::3'].map(connect).map((s) => s.destroyed)).toEqual([false, true]);
  });
});
