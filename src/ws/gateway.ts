// The market-maker WebSocket on the HTTP port at /v1/ws (spec/asyncapi.yaml): upgrade, per-connection
// lifecycle (auth deadline, handshake, heartbeat, session expiry, removal) and shutdown.
//
// Several API processes may serve connections at once: a connection's state lives only with the
// connection, sessions live in the database. Removal reaches every process through the database: each
// heartbeat tick asks, in one query for all of the process's authenticated connections, which sessions
// were revoked (or whose market maker was removed), so a removal ends a connection on another process
// within one MM_HEARTBEAT_INTERVAL_MS (plus that query); on the process that served the DELETE at once.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, WebSocket } from 'ws';
import type { ServerMessage } from '../../generated/asyncapi/types.js';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { createMarketMakerSession, endedSessionIds } from '../domain/market-makers/market-makers.js';
import { newChallenge, verifyAuthResponse, type AuthFailure, type Challenge } from './handshake.js';
import { heartbeatAction, startTicker } from './heartbeat.js';
import { CLOSE, closeMeaning, LocalConnectionSlots, MAX_AUTH_ATTEMPTS, MAX_BUFFERED_BYTES, MAX_PAYLOAD_BYTES, type ConnectionSlots } from './limits.js';
import { receiveFrames } from './inbound.js';
import { noSharedCap, type Release, type SharedConnectionCap } from './connection-slots.js';
import { serializeServerMessage, type ParsedFrame } from './protocol.js';
import { dispatchClientMessage, type ClientMessageHandlers } from './messages.js';

export const WS_PATH = '/v1/ws';
/** setTimeout's largest delay; longer session timers are left to the heartbeat tick. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface GatewayDeps {
  mm: Config['mm'];
  orm: Orm;
  logger: Logger;
  /** Check every server frame against the AsyncAPI schema (everywhere but production). */
  checkFrames: boolean;
  /** Connection counting per address (default: this process only, LocalConnectionSlots). */
  slots?: ConnectionSlots;
  /** MM_MAX_CONNECTIONS_PER_IP counted across every API process (src/ws/connection-slots.ts); none when absent. */
  sharedCap?: SharedConnectionCap | undefined;
}

interface Connection {
  id: string;
  ws: WebSocket;
  ip: string;
  openedAtMs: number;
  challenge: Challenge | null;
  authAttempts: number;
  missedPongs: number;
  session: { id: string; walletAddress: string; expiresAtMs: number } | null;
  authTimer: NodeJS.Timeout | null;
  expiryTimer: NodeJS.Timeout | null;
  ending: boolean;
}

export interface Gateway {
  /** The HTTP server's 'upgrade' listener. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends this process's connections of a removed market maker now (other processes: next tick). */
  endWallet(walletAddress: string): void;
  connectionCount(): number;
  /** Closes every connection with 1001 and stops the timers. */
  close(): Promise<void>;
}

export function createGateway(deps: GatewayDeps): Gateway {
  const { mm, orm, checkFrames } = deps;
  const log = deps.logger.child({ component: 'mm-ws' });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES, perMessageDeflate: false, clientTracking: false });
  const connections = new Set<Connection>();
  const slots = deps.slots ?? new LocalConnectionSlots(mm.maxConnectionsPerIp, mm.maxUnauthenticatedPerIp);
  const sharedCap = deps.sharedCap ?? noSharedCap;
  const frameLimits = { framesPerSecond: mm.maxFramesPerSecond, maxQueuedFrames: mm.maxQueuedFrames, maxUnauthenticatedFrames: mm.maxUnauthenticatedFrames };
  let closing = false;

  const send = (c: Connection, msg: ServerMessage): boolean => {
    const text = serializeServerMessage(msg, checkFrames);
    if (c.ws.readyState !== WebSocket.OPEN) return false;
    if (c.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      log.warn({ conn_id: c.id, wallet: c.session?.walletAddress ?? null, buffered_bytes: c.ws.bufferedAmount }, 'connection dropped: slow reader (unsent data above the bound)');
      c.ws.terminate();
      return false;
    }
    c.ws.send(text);
    return true;
  };

  const end = (c: Connection, code: number, reason: string) => {
    if (c.ending) return;
    c.ending = true;
    clearTimers(c);
    c.ws.close(code, reason);
    c.ws.resume(); // a socket paused for backpressure must still read the peer's close frame
    // A peer that never answers the close frame is cut off.
    setTimeout(() => c.ws.terminate(), 2_000).unref();
  };

  const endSession = (c: Connection, code: 4003 | 4004, expiredAtMs: number) => {
    if (c.ending || !c.session) return;
    send(c, { type: 'AUTH_EXPIRED', expired_at_ms: expiredAtMs });
    end(c, code, code === CLOSE.sessionExpired ? 'session expired' : 'market maker removed');
  };

  const authResult = (c: Connection, error: AuthFailure) =>
    send(c, { type: 'auth_result', success: false, error, session_token: null, expires_at: null });

  async function onAuthResponse(c: Connection, frame: Record<string, unknown>) {
    if (c.session) return void authResult(c, 'already_authenticated');
    const challenge = c.challenge;
    if (!challenge) return void authResult(c, 'no_challenge');
    c.challenge = null; // consumed by the first answer, whatever its outcome
    c.authAttempts += 1;
    if (c.authAttempts > MAX_AUTH_ATTEMPTS) {
      log.warn({ conn_id: c.id, ip: c.ip, attempts: c.authAttempts }, 'connection closed: too many authentication attempts');
      return end(c, CLOSE.policyViolation, 'too many authentication attempts');
    }
    const claimed = typeof frame.wallet_address === 'string' ? frame.wallet_address.slice(0, 42) : null;
    const outcome = await verifyAuthResponse(frame, challenge, { authDomain: mm.authDomain, challengeTtlMs: mm.challengeTtlMs });
    if (!outcome.ok) {
      log.info({ conn_id: c.id, ip: c.ip, wallet: claimed, error: outcome.error, attempt: c.authAttempts }, `authentication failed: ${outcome.error}`);
      return void authResult(c, outcome.error);
    }
    const session = await createMarketMakerSession(orm.em.fork(), outcome.walletAddress, mm.sessionTtlMs);
    if (!session) {
      log.info({ conn_id: c.id, ip: c.ip, wallet: outcome.walletAddress, error: 'unknown_market_maker' }, 'authentication failed: unknown_market_maker');
      return void authResult(c, 'unknown_market_maker');
    }
    if (c.ending || c.ws.readyState !== WebSocket.OPEN) {
      log.info({ conn_id: c.id, wallet: session.walletAddress, session_id: session.sessionId }, 'authenticated after the connection closed; the session token is valid but was not delivered');
      return;
    }
    if (c.session) return void authResult(c, 'already_authenticated'); // two answers raced; keep the first session
    c.session = { id: session.sessionId, walletAddress: session.walletAddress, expiresAtMs: session.expiresAtMs };
    slots.authenticated(c.ip);
    if (c.authTimer) clearTimeout(c.authTimer);
    c.authTimer = null;
    const delay = session.expiresAtMs - Date.now();
    if (delay <= MAX_TIMER_MS) c.expiryTimer = setTimeout(() => endSession(c, CLOSE.sessionExpired, session.expiresAtMs), Math.max(0, delay));
    send(c, { type: 'auth_result', success: true, error: null, session_token: session.token, expires_at: session.expiresAt });
    log.info(
      { conn_id: c.id, ip: c.ip, wallet: session.walletAddress, session_id: session.sessionId, expires_at_ms: session.expiresAtMs },
      'market maker authenticated',
    );
  }

  /** Synchronous but for auth_response (src/ws/inbound.ts: later frames wait only for a promise). */
  function onFrame(c: Connection, parsed: ParsedFrame): Promise<void> | void {
    if (c.ending) return;
    if (parsed.kind === 'error') {
      log.debug({ conn_id: c.id, code: parsed.code, detail: parsed.message }, 'frame rejected');
      return void send(c, { type: 'error', code: parsed.code, message: parsed.message });
    }
    return dispatchClientMessage(onMessage, c, parsed);
  }

  const onMessage: ClientMessageHandlers<Connection> = {
    auth: (c) => {
      if (c.session) return void authResult(c, 'already_authenticated');
      c.challenge = newChallenge(); // replaces any outstanding challenge
      send(c, { type: 'auth_challenge', nonce: c.challenge.nonce, timestamp: c.challenge.timestamp });
    },
    auth_response: onAuthResponse,
    pong: (c) => {
      c.missedPongs = 0;
    },
  };

  function onConnection(ws: WebSocket, ip: string, releaseShared: Release) {
    const c: Connection = {
      id: randomUUID(),
      ws,
      ip,
      openedAtMs: Date.now(),
      challenge: null,
      authAttempts: 0,
      missedPongs: 0,
      session: null,
      authTimer: null,
      expiryTimer: null,
      ending: false,
    };
    connections.add(c);
    log.info({ conn_id: c.id, ip, connections: connections.size }, 'market-maker connection opened');
    c.authTimer = setTimeout(() => {
      if (c.session) return;
      log.info({ conn_id: c.id, ip, timeout_ms: mm.authTimeoutMs }, 'connection closed: not authenticated in time');
      end(c, CLOSE.authTimeout, 'not authenticated in time');
    }, mm.authTimeoutMs);
    receiveFrames(ws, frameLimits, {
      authenticated: () => c.session !== null,
      ending: () => c.ending,
      answerPong: () => {
        if (c.missedPongs === 0) return false;
        c.missedPongs = 0;
        return true;
      },
      handle: (frame) => onFrame(c, frame),
      refuse: (reason) => {
        log.warn({ conn_id: c.id, ip, wallet: c.session?.walletAddress ?? null, reason }, `connection closed: ${reason}`);
        end(c, CLOSE.policyViolation, reason);
      },
      failed: (err) => {
        log.error({ err, conn_id: c.id }, 'frame handling failed');
        try {
          send(c, { type: 'error', code: 'internal_error', message: 'the service could not process this frame; if it was auth_response, send auth again' });
        } catch {
          /* the socket is gone */
        }
      },
    });
    ws.on('error', (err) => {
      // ws reports protocol violations (an oversized frame: 1009) here and closes the connection itself.
      log.info({ conn_id: c.id, wallet: c.session?.walletAddress ?? null, reason: err.message }, 'connection error');
    });
    ws.on('close', (code, reason) => {
      clearTimers(c);
      c.ending = true;
      connections.delete(c);
      slots.close(ip, c.session !== null);
      releaseShared();
      log.info(
        {
          conn_id: c.id,
          ip,
          wallet: c.session?.walletAddress ?? null,
          code,
          reason: reason.toString('utf8') || closeMeaning(code),
          duration_ms: Date.now() - c.openedAtMs,
          connections: connections.size,
        },
        `market-maker connection closed (${code} ${reason.toString('utf8') || closeMeaning(code)})`,
      );
    });
  }

  async function tick() {
    const now = Date.now();
    const authenticated: Connection[] = [];
    for (const c of connections) {
      if (c.ending) continue;
      if (c.session && now >= c.session.expiresAtMs) {
        endSession(c, CLOSE.sessionExpired, c.session.expiresAtMs);
        continue;
      }
      if (heartbeatAction(c, mm.maxMissedPongs) === 'close') {
        log.info({ conn_id: c.id, ip: c.ip, wallet: c.session?.walletAddress ?? null, missed_pongs: c.missedPongs }, 'connection closed: heartbeat pings not answered');
        end(c, CLOSE.missedPongs, 'heartbeat not answered');
        continue;
      }
      if (send(c, { type: 'ping', timestamp: now })) c.missedPongs += 1;
      if (c.session) authenticated.push(c);
    }
    if (authenticated.length === 0) return;
    const ended = await endedSessionIds(orm.em.fork(), authenticated.map((c) => c.session!.id));
    if (ended.size === 0) return;
    const at = Date.now();
    for (const c of authenticated) {
      if (c.session && ended.has(c.session.id)) {
        log.info({ conn_id: c.id, wallet: c.session.walletAddress, session_id: c.session.id }, 'session revoked or market maker removed: ending the connection');
        endSession(c, CLOSE.removed, at);
      }
    }
  }

  const ticker = startTicker(mm.heartbeatIntervalMs, tick, (err) => log.error({ err }, 'heartbeat tick failed'));

  return {
    handleUpgrade(req, socket, head) {
      socket.on('error', () => socket.destroy());
      let path: string;
      try {
        path = new URL(req.url ?? '/', 'http://localhost').pathname;
      } catch {
        path = '';
      }
      if (path !== WS_PATH) return refuse(socket, 404, 'Not Found');
      if (closing) return refuse(socket, 503, 'Service Unavailable');
      const ip = req.socket.remoteAddress ?? 'unknown';
      const refusal = slots.check(ip);
      if (refusal) {
        log.warn({ ip, refusal, limit: refusal === 'too_many_connections' ? mm.maxConnectionsPerIp : mm.maxUnauthenticatedPerIp }, `upgrade refused: ${refusal} from this IP`);
        return refuse(socket, 429, 'Too Many Requests');
      }
      void sharedCap.acquire(ip).then((releaseShared) => {
        if (!releaseShared) {
          log.warn({ ip, refusal: 'too_many_connections', limit: mm.maxConnectionsPerIp, across: 'processes' }, 'upgrade refused: too_many_connections from this IP');
          return refuse(socket, 429, 'Too Many Requests');
        }
        if (closing || socket.destroyed) return releaseShared();
        wss.handleUpgrade(req, socket, head, (ws) => {
          if (slots.open(ip)) {
            releaseShared();
            ws.close(CLOSE.policyViolation, 'too many connections');
            return;
          }
          onConnection(ws, ip, releaseShared);
        });
      });
    },
    endWallet(walletAddress) {
      const at = Date.now();
      for (const c of connections) {
        if (c.session && c.session.walletAddress.toLowerCase() === walletAddress.toLowerCase()) {
          log.info({ conn_id: c.id, wallet: c.session.walletAddress, session_id: c.session.id }, 'market maker removed: ending the connection');
          endSession(c, CLOSE.removed, at);
        }
      }
    },
    connectionCount: () => connections.size,
    async close() {
      closing = true;
      ticker.stop();
      const open = [...connections];
      if (open.length) log.info({ connections: open.length }, 'closing market-maker connections (1001)');
      await Promise.all(
        open.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.ws.readyState === WebSocket.CLOSED) return resolve();
              c.ws.once('close', () => resolve());
              end(c, CLOSE.shuttingDown, 'service shutting down');
            }),
        ),
      );
      wss.close();
    },
  };
}

function clearTimers(c: Connection) {
  if (c.authTimer) clearTimeout(c.authTimer);
  if (c.expiryTimer) clearTimeout(c.expiryTimer);
  c.authTimer = null;
  c.expiryTimer = null;
}

function refuse(socket: Duplex, status: number, text: string) {
  const extra = status === 429 ? 'Retry-After: 1\r\n' : '';
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`, () => socket.destroy());
}
