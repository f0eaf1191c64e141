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
  const t = new ConnectionTable(log);
  server.on('connection', (socket: Socket) => admit(t, caps, maxTotal, socket));
  server.on('request', (req, res) => {
    const s = req.socket;
    const c = t.conns.get(s);
    if (!c) return;
    if (c.silent) {
      c.silent = false;
      s.setTimeout(0); // from here node's keepAliveTimeout/requestTimeout apply
    }
    c.busy += 1;
    t.markBusy(s, c);
    res.once('close', () => {
      c.busy -= 1;
      if (c.busy === 0 && !c.upgraded && t.conns.has(s)) t.markIdle(s, c);
    });
  });
  // An upgraded connection (the market-maker WebSocket) is never idle here: the gateway bounds those.
  server.on('upgrade', (req) => {
    const s = req.socket;
    const c = t.conns.get(s);
    if (!c) return;
    c.upgraded = true;
    t.markBusy(s, c);
  });

  return { maxTotal, open: () => t.conns.size, shed: () => t.shedCount, refused: () => t.refusedCount };
}

/** A new connection: counted in, after shedding an idle one if a cap is reached, or refused when none is idle. */
function admit(t: ConnectionTable, caps: ConnectionCaps, maxTotal: number, socket: Socket): void {
  const peer = socket.remoteAddress ?? 'unknown';
  const trusted = caps.trustedPeer?.(peer) ?? false;
  // The key counted: IPv6 peers by their /56 (a trusted proxy by its own address: it is not capped, and
  // its connections must not count against its neighbours).
  const ip = trusted ? peer : clientNetwork(peer);
  const refuse = (which: 'per_ip' | 'total') => {
    t.refusedCount += 1;
    if (t.refusedCount % 1000 === 1)
      t.log.warn(
        { ip: peer, network: ip, cap: which, open: t.conns.size, refused: t.refusedCount },
        `connection refused: ${which} cap reached and no idle connection to shed`,
      );
    socket.destroy();
  };
  const capped = caps.maxPerIp > 0 && !trusted;
  if (capped && (t.perIp.get(ip) ?? 0) >= caps.maxPerIp && !t.shedOne(t.idleByIp.get(ip))) return refuse('per_ip');
  if (maxTotal > 0 && t.conns.size >= maxTotal && !t.shedOne(t.idle)) return refuse('total');
  const c: Conn = { ip, silent: true, busy: 0, upgraded: false };
  socket.setTimeout(caps.silentTimeoutMs); // node's own 'timeout' listener destroys it
  t.conns.set(socket, c);
  t.perIp.set(ip, (t.perIp.get(ip) ?? 0) + 1);
  t.markIdle(socket, c);
  socket.once('close', () => t.forget(socket, c));
}

/** The open connections, their count per address, and the idle ones (all of them, and per address). */
class ConnectionTable {
  readonly conns = new Map<Socket, Conn>();
  readonly perIp = new Map<string, number>();
  /** Idle connections, oldest idle first (a Set keeps insertion order). */
  readonly idle = new Set<Socket>();
  readonly idleByIp = new Map<string, Set<Socket>>();
  shedCount = 0;
  refusedCount = 0;

  constructor(readonly log: Logger) {}

  markIdle(s: Socket, c: Conn): void {
    this.idle.add(s);
    let set = this.idleByIp.get(c.ip);
    if (!set) this.idleByIp.set(c.ip, (set = new Set()));
    set.add(s);
  }

  markBusy(s: Socket, c: Conn): void {
    this.idle.delete(s);
    const set = this.idleByIp.get(c.ip);
    set?.delete(s);
    if (set?.size === 0) this.idleByIp.delete(c.ip);
  }

  /** Closes the first connection of `from` (oldest idle first); false when there is none. */
  shedOne(from: Iterable<Socket> | undefined): boolean {
    for (const s of from ?? []) {
      const c = this.conns.get(s)!;
      this.forget(s, c); // counted out now, not when the close event comes
      s.destroy();
      this.shedCount += 1;
      if (this.shedCount % 1000 === 1)
        this.log.warn(
          { ip: c.ip, open: this.conns.size, shed: this.shedCount },
          'idle connection closed to make room (connection cap reached)',
        );
      return true;
    }
    return false;
  }

  forget(s: Socket, c: Conn): void {
    if (!this.conns.delete(s)) return;
    this.markBusy(s, c);
    const n = (this.perIp.get(c.ip) ?? 1) - 1;
    if (n <= 0) this.perIp.delete(c.ip);
    else this.perIp.set(c.ip, n);
  }
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
