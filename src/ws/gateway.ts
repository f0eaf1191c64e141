// The market-maker WebSocket on the HTTP port at /v1/ws (spec/asyncapi.yaml): the upgrade (path, per-address
// and cross-process connection caps), the registry of this process's connections, and shutdown. One file per
// concern beside it: connection.ts (a connection's state, socket and frames), message-handlers.ts (auth,
// auth_response, pong), session-sweep.ts (heartbeat tick, session expiry, removal), rfq-stream.ts
// (subscribe, quote, quote_cancel in rfq-intake.ts and the RFQ frames from the bus in rfq-fanout.ts).
//
// Several API processes may serve connections at once: a connection's state lives only with the
// connection, sessions live in the database. A removal ends the wallet's connections on every process at
// once: the process that served the DELETE ends its own, and the RFQ lifecycle publishes `mm.removed` on the
// bus (src/trading/rfq-lifecycle.ts, makerRemoved). The bus is at-most-once, so the database stays the
// backstop: each heartbeat tick asks, in one query for all of the process's authenticated connections, which
// sessions were revoked (or whose market maker was removed), which ends a connection a lost message missed
// within one MM_HEARTBEAT_INTERVAL_MS.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import type { Bus } from '../bus/bus.js';
import type { Config } from '../config/types.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { startTicker } from './heartbeat.js';
import { CLOSE, LocalConnectionSlots, MAX_PAYLOAD_BYTES, slotsByNetwork, type ConnectionSlots } from './limits.js';
import { clientNetwork } from '../http/client-address.js';
import { noSharedCap, type SharedConnectionCap } from './connection-slots.js';
import { end, openConnection, type Connection, type GatewayContext } from './connection.js';
import { messageHandlers } from './message-handlers.js';
import { mmpHandlers } from './mmp.js';
import type { ClientMessageHandlers } from './messages.js';
import { endRevokedUsers, endWallet, sweepSessions } from './session-sweep.js';
import { createRfqStream, type RfqStreamSettings } from './rfq-stream.js';
import { createUserStream } from './user-stream.js';

export const WS_PATH = '/v1/ws';

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
  /** Cross-process events in: RFQ frames, `mm.removed` (rt.bus; this module publishes nothing). */
  bus: Bus;
  /** RFQ quoting (rfq-stream.ts). */
  rfq: RfqStreamSettings;
  /** The user channel (user-stream.ts): USER_WS_MAX_PER_USER and its cap across processes (keyed `user:<id>`). */
  user: { maxPerUser: number; sharedCap?: SharedConnectionCap | undefined };
  /** The client address of an upgrade request (TRUST_PROXY, src/http/client-address.ts); default: the TCP peer. */
  clientAddress?: (req: IncomingMessage) => string;
}

export interface Gateway {
  /** The HTTP server's 'upgrade' listener. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends this process's connections of a removed market maker now (the RFQ lifecycle's makerRemoved tells the others). */
  endWallet(walletAddress: string): void;
  connectionCount(): number;
  /** Closes every connection with 1001 and stops the timers. */
  close(): Promise<void>;
}

export function createGateway(deps: GatewayDeps): Gateway {
  const { mm } = deps;
  const log = deps.logger.child({ component: 'mm-ws' });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES, perMessageDeflate: false, clientTracking: false });
  // Counted per client network (IPv6 by /56), like the HTTP rate limit.
  const slots = slotsByNetwork(deps.slots ?? new LocalConnectionSlots(mm.maxConnectionsPerIp, mm.maxUnauthenticatedPerIp));
  const sharedCap = deps.sharedCap ?? noSharedCap;
  const connections = new Set<Connection>();
  const ctx: GatewayContext = {
    mm,
    orm: deps.orm,
    log,
    checkFrames: deps.checkFrames,
    slots,
    connections,
    // Connections authenticate and close only after rfq exists.
    onAuthenticated: (c) => rfq.authenticated(c),
    onClosed: (c) => {
      rfq.forget(c);
      user.forget(c);
    },
    admit: (c, frame) => rfq.admit(c, frame),
  };
  const rfq = createRfqStream(ctx, deps.bus, deps.rfq, (wallet) => endWallet(ctx, wallet));
  const user = createUserStream(ctx, deps.bus, { maxPerUser: deps.user.maxPerUser, sharedCap: deps.user.sharedCap ?? noSharedCap });
  const mmHandlers = messageHandlers(ctx);
  const handlers: ClientMessageHandlers<Connection> = {
    ...mmHandlers,
    ...rfq.handlers,
    ...mmpHandlers(ctx),
    // The user channel shares the connection: `auth` with a session_token, `subscribe` with channel user.
    auth: (c, m) => (m.session_token !== undefined ? user.auth(c, { ...m, session_token: m.session_token }) : mmHandlers.auth(c, m)),
    subscribe: (c, m) => (m.channel === 'user' ? user.subscribe(c, m) : rfq.handlers.subscribe(c, m)),
  };
  let closing = false;

  const ticker = startTicker(
    mm.heartbeatIntervalMs,
    () => sweepSessions(ctx),
    (err) => log.error({ err }, 'heartbeat tick failed'),
  );
  // A logout (src/http/handlers/auth.ts) ends the session's user-channel connections on every process at once; the
  // database decides (a message only says which session to look at), and the heartbeat tick is the backstop.
  const offSessions = deps.bus.subscribe('sessions.changed', (payload) => {
    const sessionId = (payload as { session_id?: unknown } | null)?.session_id;
    if (typeof sessionId !== 'string') return;
    endRevokedUsers(ctx, sessionId).catch((err: unknown) =>
      log.warn({ err, session_id: sessionId }, 'revoked sessions could not be read; the next tick retries'),
    );
  });

  return {
    handleUpgrade: createUpgradeHandler({ deps, ctx, wss, handlers, sharedCap, closing: () => closing }),
    endWallet: (walletAddress) => endWallet(ctx, walletAddress),
    connectionCount: () => connections.size,
    async close() {
      closing = true;
      ticker.stop();
      offSessions();
      rfq.stop();
      user.stop();
      await endAll(connections, log);
      await rfq.settled(); // cancel-on-disconnect withdrawals of the connections just closed
      wss.close();
    },
  };
}

function refuse(socket: Duplex, status: number, text: string) {
  const extra = status === 429 ? 'Retry-After: 1\r\n' : '';
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`, () => socket.destroy());
}

interface UpgradeDeps {
  deps: GatewayDeps;
  ctx: GatewayContext;
  wss: WebSocketServer;
  handlers: ClientMessageHandlers<Connection>;
  sharedCap: SharedConnectionCap;
  /** Whether the gateway is shutting down (upgrades answered 503). */
  closing: () => boolean;
}

/** The upgrade: the path, then the per-address caps (this process's, then across processes), then the connection. */
function createUpgradeHandler({ deps, ctx, wss, handlers, sharedCap, closing }: UpgradeDeps): Gateway['handleUpgrade'] {
  const { mm, slots, log } = ctx;
  return (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      path = '';
    }
    if (path !== WS_PATH) return refuse(socket, 404, 'Not Found');
    if (closing()) return refuse(socket, 503, 'Service Unavailable');
    const ip = deps.clientAddress ? deps.clientAddress(req) : (req.socket.remoteAddress ?? 'unknown');
    const refusal = slots.check(ip);
    if (refusal) {
      log.warn(
        { ip, refusal, limit: refusal === 'too_many_connections' ? mm.maxConnectionsPerIp : mm.maxUnauthenticatedPerIp },
        `upgrade refused: ${refusal} from this IP`,
      );
      return refuse(socket, 429, 'Too Many Requests');
    }
    void sharedCap.acquire(clientNetwork(ip)).then((releaseShared) => {
      if (!releaseShared) {
        log.warn(
          { ip, refusal: 'too_many_connections', limit: mm.maxConnectionsPerIp, across: 'processes' },
          'upgrade refused: too_many_connections from this IP',
        );
        return refuse(socket, 429, 'Too Many Requests');
      }
      if (closing() || socket.destroyed) return releaseShared();
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (slots.open(ip)) {
          releaseShared();
          ws.close(CLOSE.policyViolation, 'too many connections');
          return;
        }
        openConnection(ctx, handlers, ws, ip, releaseShared);
      });
    });
  };
}

/** Ends every open connection with 1001; resolves once each is closed. */
async function endAll(connections: Set<Connection>, log: Logger): Promise<void> {
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
}
