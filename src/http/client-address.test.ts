import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../config/parse.js';
import { loadConfig } from '../config/load.js';
import { clientNetwork, createClientAddress, normalizeAddress } from './client-address.js';

const req = (peer: string | undefined, xff?: string | string[]) =>
  ({ socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as IncomingMessage;

describe('TRUST_PROXY parsing', () => {
  it('off by default; a hop count; a list of addresses and CIDRs; every bad value named', () => {
    for (const off of [undefined, '', 'off', 'false', '0', ' OFF ']) expect(parseTrustProxy(off)).toEqual({ kind: 'off' });
    expect(parseTrustProxy('2')).toEqual({ kind: 'hops', hops: 2 });
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1,::1,fd00::/8')).toEqual({
      kind: 'cidrs',
      cidrs: ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8'],
    });
    expect(parseTrustProxy('33')).toEqual({ problem: 'a hop count must be 1-32' });
    expect(parseTrustProxy('10.0.0.0/33,proxy.local,::1/129,1.2.3.4/8/1')).toMatchObject({
      problem: expect.stringContaining('10.0.0.0/33, proxy.local, ::1/129, 1.2.3.4/8/1'),
    });
    expect(() => loadConfig({ TRUST_PROXY: 'lb.example.com' })).toThrow(/TRUST_PROXY: not an address or CIDR: lb\.example\.com/);
    expect(loadConfig({}).trustProxy).toEqual({ kind: 'off' });
  });
});

describe('the client address', () => {
  it('off: the TCP peer, whatever X-Forwarded-For says (IPv4-mapped IPv6 is the IPv4 address)', () => {
    const client = createClientAddress({ kind: 'off' });
    expect(client(req('::ffff:10.1.2.3', '6.6.6.6'))).toBe('10.1.2.3');
    expect(client(req(undefined))).toBe('unknown');
    expect(normalizeAddress('2001:DB8::1')).toBe('2001:db8::1');
  });

  it('CIDRs: the first address, from the nearest hop out, that is not a trusted proxy', () => {
    const client = createClientAddress({ kind: 'cidrs', cidrs: ['10.0.0.0/8', '::1'] });
    // The load balancer (10.0.0.5) appended the client's address; the client's own entry is beyond it.
    expect(client(req('10.0.0.5', '6.6.6.6, 203.0.113.7'))).toBe('203.0.113.7');
    // Two trusted hops, then the client; several headers are one list.
    expect(client(req('::1', ['198.51.100.2', '10.0.0.9']))).toBe('198.51.100.2');
    // An untrusted peer that forges the header is judged by its own address.
    expect(client(req('203.0.113.9', '10.0.0.1'))).toBe('203.0.113.9');
    // A trusted peer without the header (a health check from the proxy itself) is the client.
    expect(client(req('10.0.0.5'))).toBe('10.0.0.5');
    // Garbage past a trusted hop: the last address a proxy vouched for.
    expect(client(req('10.0.0.5', 'not-an-ip'))).toBe('10.0.0.5');
    // Every hop trusted: the farthest.
    expect(client(req('10.0.0.5', '10.0.0.7, 10.0.0.6'))).toBe('10.0.0.7');
  });

  it('a hop count: the address that many hops out (or the farthest one known)', () => {
    const one = createClientAddress({ kind: 'hops', hops: 1 });
    expect(one(req('10.0.0.5', '6.6.6.6, 203.0.113.7'))).toBe('203.0.113.7');
    expect(one(req('10.0.0.5'))).toBe('10.0.0.5');
    const two = createClientAddress({ kind: 'hops', hops: 2 });
    expect(two(req('10.0.0.5', '6.6.6.6, 203.0.113.7, 10.0.0.9'))).toBe('203.0.113.7');
    expect(two(req('10.0.0.5', '203.0.113.7'))).toBe('203.0.113.7');
  });
});

describe('the network a client is counted by', () => {
  it('IPv4 by address; IPv6 by its /56, whatever address inside it; IPv4-mapped IPv6 as IPv4', () => {
    expect(clientNetwork('10.1.2.3')).toBe('10.1.2.3');
    expect(clientNetwork('::ffff:10.1.2.3')).toBe('10.1.2.3');
    const a = clientNetwork('2001:db8:0:1::1');
    expect(clientNetwork('2001:DB8:0:1:ffff::2')).toBe(a);
    expect(clientNetwork('2001:db8:0:ff::9')).toBe(a);
    expect(clientNetwork('2001:db8:0:100::1')).not.toBe(a);
    expect(clientNetwork(undefined)).toBe('unknown');
  });
});
