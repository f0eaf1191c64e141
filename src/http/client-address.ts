// The one place that says who the client is (TRUST_PROXY, docs/deployment.md): rate limits, WebSocket
// connection caps, access logs and session logs all take the address from here. Without trusted proxies it
// is the TCP peer and X-Forwarded-For is ignored. With them, the peer and the X-Forwarded-For entries are
// walked from the nearest hop outwards, and the client is the first address that is not a trusted proxy
// (or, with a hop count N, the address N hops out): an entry a client wrote itself sits beyond the hop its
// own proxy appended, so it is never reached, and a client that forges the header without going through a
// trusted proxy is judged by its own TCP address.
//
// What is counted per client (the rate limit, the TCP connection cap per address, the WebSocket caps) is
// its network, `clientNetwork`: an IPv4 address, or the IPv6 /56 it sits in, since one IPv6 host is given
// a whole prefix and could otherwise take a new address per request or connection.
import { BlockList, isIP } from 'node:net';
import { ipKeyGenerator } from 'express-rate-limit';
import type { IncomingMessage } from 'node:http';
import type { TrustProxy } from '../config/parse.js';

export type ClientAddress = (req: IncomingMessage) => string;

/** `::ffff:10.0.0.1` is 10.0.0.1: one client, one key, whichever socket family it came in on. */
export function normalizeAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  const a = address.trim();
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(a) ? a.slice(7) : a.toLowerCase();
}

/** The prefix length by which IPv6 clients are counted together (express-rate-limit's default, a customer's usual allocation). */
export const IPV6_CLIENT_PREFIX = 56;

/**
 * The key a client is counted by: the IPv4 address, or for IPv6 its /56 network (`2001:db8:0:ab00::/56`),
 * through express-rate-limit's own key function so the rate limit and the connection caps agree.
 */
export function clientNetwork(address: string | undefined): string {
  const a = normalizeAddress(address);
  return isIP(a) === 6 ? ipKeyGenerator(a, IPV6_CLIENT_PREFIX) : a;
}

/** The CIDR list as a BlockList (addresses without a prefix length are single hosts). */
export function trustedRanges(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of cidrs) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** X-Forwarded-For entries, nearest hop first (several headers are one list, in order). */
function forwardedHops(req: IncomingMessage): string[] {
  const raw = req.headers['x-forwarded-for'];
  if (raw === undefined) return [];
  const joined = Array.isArray(raw) ? raw.join(',') : raw;
  return joined
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .reverse();
}

/** Whether a TCP peer is a trusted proxy: in the CIDR list, or any peer with a hop count; none when off. */
export function createTrustedPeer(trust: TrustProxy): (address: string) => boolean {
  if (trust.kind === 'off') return () => false;
  if (trust.kind === 'hops') return () => true;
  const ranges = trustedRanges(trust.cidrs);
  return (address) => {
    const a = normalizeAddress(address);
    const family = isIP(a);
    return family !== 0 && ranges.check(a, family === 6 ? 'ipv6' : 'ipv4');
  };
}

export function createClientAddress(trust: TrustProxy): ClientAddress {
  if (trust.kind === 'off') return (req) => normalizeAddress(req.socket.remoteAddress);
  const trustedPeer = createTrustedPeer(trust);
  const trusted = (address: string, index: number): boolean => (trust.kind === 'hops' ? index < trust.hops : trustedPeer(address));
  return (req) => {
    let client = normalizeAddress(req.socket.remoteAddress);
    if (!trusted(client, 0)) return client;
    const hops = forwardedHops(req);
    for (let i = 0; i < hops.length; i++) {
      const hop = normalizeAddress(hops[i]);
      if (isIP(hop) === 0) return client; // garbage past a trusted hop: the last address a proxy vouched for
      client = hop;
      if (!trusted(hop, i + 1)) return client;
    }
    return client; // every hop trusted: the farthest one is the client
  };
}
