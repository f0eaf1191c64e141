// TCP connection caps of the HTTP server (HTTP and the WebSocket upgrades share it): at most `maxPerIp`
// open connections per client network (an IPv4 address, or an IPv6 /56: `clientNetwork` of
// src/http/client-address.ts, as the rate limit counts) and `maxTotal` in all, so that one client cannot fill the
// process's open-file limit. A connection past a cap first sheds an idle connection (no request in
// progress and not upgraded: kept-alive, or connected without a complete request yet) of that address,
// or for the total cap of any address, oldest idle first; when none is idle the new connection is
// closed at once. Every operation is O(1).
//
// A connection that sends nothing is not covered by node's headersTimeout (only a started request is):
// it gets a socket timeout of `silentTimeoutMs` until its first request or upgrade.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';
import { clientNetwork } from './client-address.js';

export interface ConnectionCaps {
  /** 0: no cap. */
  maxPerIp: number;
  /** 0: no cap (still clamped below the open-file limit). */
  maxTotal: number;
  /** A connection that has not sent a complete request (or upgrade) within this is closed. */
  silentTimeoutMs: number;
  /**
   * Peers exempt from `maxPerIp`: the trusted reverse proxies of TRUST_PROXY (src/http/client-address.ts),
   * whose one address carries every client behind them. `maxTotal` still counts them.
   */
  trustedPeer?: (address: string) => boolean;
}

/** File descriptors kept for everything but client connections (database, Redis, files, logs). */
export const RESERVED_FILE_DESCRIPTORS = 256;

interface Conn {
  ip: string;
  /** Still waiting for its first request: the silent timeout runs. */
  silent: boolean;
  busy: number;
  upgraded: boolean;
}

export interface ConnectionLimiter {
  /** The total cap in force (the configured one, or lower to fit the open-file limit; 0: none). */
  maxTotal: number;
  open(): number;
  shed(): number;
  refused(): number;
}

export function limitConnections(server: Server, caps: ConnectionCaps, logger: Logger, fileLimit = openFileLimit()): ConnectionLimiter {
  const log = logger.child({ component: 'connections' });
  const maxTotal = effectiveTotal(caps.maxTotal, fileLimit);
  if (maxTotal !== caps.maxTotal) {
    log.warn(
      { configured: caps.maxTotal, open_file_limit: fileLimit, max_total: maxTotal },
      'HTTP_MAX_CONNECTIONS lowered to fit the open-file limit (ulimit -n)',
    );
  }
  const conns = new Map<Socket, Conn>();
  const perIp = new Map<string, number>();
  /** Idle connections, oldest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();
  const idleByIp = new Map<string, Set<Socket>>();
  let shedCount = 0;
  let refusedCount = 0;

  const markIdle = (s: Socket, c: Conn) => {
    idle.add(s);
    let set = idleByIp.get(c.ip);
    if (!set) idleByIp.set(c.ip, (set = new Set()));
    set.add(s);
  };
  const markBusy = (s: Socket, c: Conn) => {
    idle.delete(s);
    const set = idleByIp.get(c.ip);
    set?.delete(s);
    if (set?.size === 0) idleByIp.delete(c.ip);
  };
  const shedOne = (from: Iterable<Socket> | undefined): boolean => {
    for (const s of from ?? []) {
      const c = conns.get(s)!;
      forget(s, c); // counted out now, not when the close event comes
      s.destroy();
      shedCount += 1;
      if (shedCount % 1000 === 1)
        log.warn({ ip: c.ip, open: conns.size, shed: shedCount }, 'idle connection closed to make room (connection cap reached)');
      return true;
    }
    return false;
  };
  const forget = (s: Socket, c: Conn) => {
    if (!conns.delete(s)) return;
    markBusy(s, c);
    const n = (perIp.get(c.ip) ?? 1) - 1;
    if (n <= 0) perIp.delete(c.ip);
    else perIp.set(c.ip, n);
  };

  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? 'unknown';
    const trusted = caps.trustedPeer?.(peer) ?? false;
    // The key counted: IPv6 peers by their /56 (a trusted proxy by its own address: it is not capped, and
    // its connections must not count against its neighbours).
    const ip = trusted ? peer : clientNetwork(peer);
    const refuse = (which: 'per_ip' | 'total') => {
      refusedCount += 1;
      if (refusedCount % 1000 === 1)
        log.warn(
          { ip: peer, network: ip, cap: which, open: conns.size, refused: refusedCount },
          `connection refused: ${which} cap reached and no idle connection to shed`,
        );
      socket.destroy();
    };
    const capped = caps.maxPerIp > 0 && !trusted;
    if (capped && (perIp.get(ip) ?? 0) >= caps.maxPerIp && !shedOne(idleByIp.get(ip))) return refuse('per_ip');
    if (maxTotal > 0 && conns.size >= maxTotal && !shedOne(idle)) return refuse('total');
    const c: Conn = { ip, silent: true, busy: 0, upgraded: false };
    socket.setTimeout(caps.silentTimeoutMs); // node's own 'timeout' listener destroys it
    conns.set(socket, c);
    perIp.set(ip, (perIp.get(ip) ?? 0) + 1);
    markIdle(socket, c);
    socket.once('close', () => forget(socket, c));
  });
  server.on('request', (req, res) => {
    const s = req.socket;
    const c = conns.get(s);
    if (!c) return;
    if (c.silent) {
      c.silent = false;
      s.setTimeout(0); // from here node's keepAliveTimeout/requestTimeout apply
    }
    c.busy += 1;
    markBusy(s, c);
    res.once('close', () => {
      c.busy -= 1;
      if (c.busy === 0 && !c.upgraded && conns.has(s)) markIdle(s, c);
    });
  });
  // An upgraded connection (the market-maker WebSocket) is never idle here: the gateway bounds those.
  server.on('upgrade', (req) => {
    const s = req.socket;
    const c = conns.get(s);
    if (!c) return;
    c.upgraded = true;
    markBusy(s, c);
  });

  return { maxTotal, open: () => conns.size, shed: () => shedCount, refused: () => refusedCount };
}

/** The configured total, or below the open-file limit minus the reserve when that is lower (or unset). */
export function effectiveTotal(configured: number, fileLimit: number | null): number {
  if (fileLimit === null) return configured;
  const fit = Math.max(1, fileLimit - RESERVED_FILE_DESCRIPTORS);
  return configured === 0 || configured > fit ? fit : configured;
}

/** The soft open-file limit of this process (Linux /proc), or null where it cannot be read. */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}
