// One market-maker connection: its state, sending (with the slow-reader bound), ending, and the wiring of
// its socket (auth deadline, inbound frames, close). The gateway (gateway.ts) owns the set of connections;
// message handlers (message-handlers.ts) and the session sweep (session-sweep.ts) act on them through here.
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import type { ServerMessage } from '../../generated/asyncapi/types.js';
import type { Config } from '../config/types.js';
import { quoteAck } from '../domain/rfq/api.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import type { Challenge } from './handshake.js';
import { receiveFrames } from './inbound.js';
import { CLOSE, closeMeaning, MAX_BUFFERED_BYTES, type ConnectionSlots } from './limits.js';
import type { Release } from './connection-slots.js';
import { dispatchClientMessage, type ClientMessageHandlers } from './messages.js';
import { errorFrame, notAuthenticatedFrame, rateLimitedAnswer, serializeServerMessage, type ParsedFrame } from './protocol.js';

export interface Connection {
  id: string;
  ws: WebSocket;
  ip: string;
  openedAtMs: number;
  challenge: Challenge | null;
  authAttempts: number;
  missedPongs: number;
  session: { id: string; walletAddress: string; expiresAtMs: number } | null;
  /** A user-channel connection: authenticated with a user session token (src/ws/user-auth.ts); null otherwise. */
  user: { userId: string; sessionId: string; expiresAtMs: number; release: Release } | null;
  authTimer: NodeJS.Timeout | null;
  expiryTimer: NodeJS.Timeout | null;
  ending: boolean;
}

/** What every part of the gateway shares: settings, the database, the log and this process's connections. */
export interface GatewayContext {
  readonly mm: Config['mm'];
  readonly orm: Orm;
  readonly log: Logger;
  /** Check every server frame against the AsyncAPI schema (everywhere but production). */
  readonly checkFrames: boolean;
  readonly slots: ConnectionSlots;
  readonly connections: Set<Connection>;
  /** Called once a connection has authenticated (the RFQ stream files it under its wallet). */
  readonly onAuthenticated?: (c: Connection) => void;
  /** Called once a connection has closed (the RFQ stream forgets its subscription and wallet). */
  readonly onClosed?: (c: Connection) => void;
  /** An authenticated connection's frame at arrival (the RFQ stream's quote budget): null, or why it is over budget. */
  readonly admit?: (c: Connection, frame: ParsedFrame) => string | null;
}

export function send(ctx: GatewayContext, c: Connection, msg: ServerMessage): boolean {
  return sendText(ctx, c, serializeServerMessage(msg, ctx.checkFrames));
}

/** Sends an already serialized (and, outside production, schema-checked) server message: broadcasts serialize once. */
export function sendText(ctx: GatewayContext, c: Connection, text: string): boolean {
  if (c.ws.readyState !== WebSocket.OPEN) return false;
  if (c.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
    ctx.log.warn(
      { conn_id: c.id, wallet: c.session?.walletAddress ?? null, buffered_bytes: c.ws.bufferedAmount },
      'connection dropped: slow reader (unsent data above the bound)',
    );
    c.ws.terminate();
    return false;
  }
  c.ws.send(text);
  return true;
}

/** Authenticated either way: a market maker's signed handshake (session) or a user's session token (user). */
export const isAuthenticated = (c: Connection): boolean => c.session !== null || c.user !== null;

export function end(c: Connection, code: number, reason: string): void {
  if (c.ending) return;
  c.ending = true;
  clearTimers(c);
  c.ws.close(code, reason);
  c.ws.resume(); // a socket paused for backpressure must still read the peer's close frame
  // A peer that never answers the close frame is cut off.
  setTimeout(() => c.ws.terminate(), 2_000).unref();
}

const END_REASON = { 4003: 'session expired', 4004: 'market maker removed', 4005: 'session revoked' } as const;

export function endSession(ctx: GatewayContext, c: Connection, code: keyof typeof END_REASON, expiredAtMs: number): void {
  if (c.ending || !isAuthenticated(c)) return;
  send(ctx, c, { type: 'AUTH_EXPIRED', expired_at_ms: expiredAtMs });
  end(c, code, END_REASON[code]);
}

export function clearTimers(c: Connection): void {
  if (c.authTimer) clearTimeout(c.authTimer);
  if (c.expiryTimer) clearTimeout(c.expiryTimer);
  c.authTimer = null;
  c.expiryTimer = null;
}

/** Registers an upgraded socket as a connection and wires its timers, frames and close. */
export function openConnection(
  ctx: GatewayContext,
  handlers: ClientMessageHandlers<Connection>,
  ws: WebSocket,
  ip: string,
  releaseShared: Release,
): void {
  const { mm, log, connections } = ctx;
  const c = newConnection(ws, ip);
  connections.add(c);
  log.info({ conn_id: c.id, ip, connections: connections.size }, 'market-maker connection opened');
  c.authTimer = setTimeout(() => {
    if (isAuthenticated(c)) return;
    log.info({ conn_id: c.id, ip, timeout_ms: mm.authTimeoutMs }, 'connection closed: not authenticated in time');
    end(c, CLOSE.authTimeout, 'not authenticated in time');
  }, mm.authTimeoutMs);
  const frameLimits = {
    framesPerSecond: mm.maxFramesPerSecond,
    frameBurst: mm.frameBurst,
    maxQueuedFrames: mm.maxQueuedFrames,
    maxUnauthenticatedFrames: mm.maxUnauthenticatedFrames,
  };
  receiveFrames(ws, frameLimits, {
    authenticated: () => isAuthenticated(c),
    ending: () => c.ending,
    answerPong: () => {
      if (c.missedPongs === 0) return false;
      c.missedPongs = 0;
      return true;
    },
    ...(ctx.admit ? { admit: (frame: ParsedFrame) => ctx.admit!(c, frame) } : {}),
    handle: (frame) => onFrame(ctx, handlers, c, frame),
    refuse: (reason) => {
      log.warn({ conn_id: c.id, ip, wallet: c.session?.walletAddress ?? null, reason }, `connection closed: ${reason}`);
      end(c, CLOSE.policyViolation, reason);
    },
    failed: (err) => {
      log.error({ err, conn_id: c.id }, 'frame handling failed');
      try {
        send(ctx, c, errorFrame('internal_error', 'the service could not process this frame; if it was auth_response, send auth again'));
      } catch {
        /* the socket is gone */
      }
    },
  });
  ws.on('error', (err) => {
    // ws reports protocol violations (an oversized frame: 1009) here and closes the connection itself.
    log.info({ conn_id: c.id, wallet: c.session?.walletAddress ?? null, reason: err.message }, 'connection error');
  });
  ws.on('close', (code, reason) => closed(ctx, c, releaseShared, code, reason));
}

function newConnection(ws: WebSocket, ip: string): Connection {
  return {
    id: randomUUID(),
    ws,
    ip,
    openedAtMs: Date.now(),
    challenge: null,
    authAttempts: 0,
    missedPongs: 0,
    session: null,
    user: null,
    authTimer: null,
    expiryTimer: null,
    ending: false,
  };
}

/** The socket closed: the connection counted out everywhere (streams, caps, the user's place) and the close logged. */
function closed(ctx: GatewayContext, c: Connection, releaseShared: Release, code: number, reason: Buffer): void {
  clearTimers(c);
  c.ending = true;
  ctx.connections.delete(c);
  ctx.onClosed?.(c);
  ctx.slots.close(c.ip, isAuthenticated(c));
  releaseShared();
  c.user?.release();
  ctx.log.info(
    {
      conn_id: c.id,
      ip: c.ip,
      wallet: c.session?.walletAddress ?? null,
      user_id: c.user?.userId ?? null,
      code,
      reason: reason.toString('utf8') || closeMeaning(code),
      duration_ms: Date.now() - c.openedAtMs,
      connections: ctx.connections.size,
    },
    `market-maker connection closed (${code} ${reason.toString('utf8') || closeMeaning(code)})`,
  );
}

/** Synchronous but for auth_response (src/ws/inbound.ts: later frames wait only for a promise). */
function onFrame(
  ctx: GatewayContext,
  handlers: ClientMessageHandlers<Connection>,
  c: Connection,
  parsed: ParsedFrame,
): Promise<void> | void {
  if (c.ending) return;
  if (parsed.kind === 'error') {
    ctx.log.debug({ conn_id: c.id, code: parsed.code, detail: parsed.message }, 'frame rejected');
    return void send(ctx, c, errorFrame(parsed.code, parsed.message));
  }
  if (parsed.kind === 'rate_limited') return void send(ctx, c, rateLimitedAnswer(parsed.frame, parsed.why));
  if (parsed.kind === 'quote_refused') {
    if (!c.session) return void send(ctx, c, notAuthenticatedFrame(parsed.type));
    const { rfqId, clientQuoteId, error } = parsed;
    return void send(ctx, c, quoteAck(rfqId, clientQuoteId, { error }));
  }
  return dispatchClientMessage(handlers, c, parsed);
}
