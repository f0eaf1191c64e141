// The heartbeat tick over every connection of this process (one timer, heartbeat.ts): expire sessions, close
// connections that stopped answering pings, ping the rest, and end, in one query for all authenticated
// connections, those whose session was revoked or whose market maker was removed on any process. A user-channel
// connection whose session was revoked (logout) gets AUTH_EXPIRED and close 4005: at once when the logout's
// `sessions.changed` reaches the process (endRevokedUsers with its session id), else at the next tick.
import { revokedSessionIds } from '../domain/identity/sessions.js';
import { endedSessionIds } from '../domain/market-makers/market-makers.js';
import { heartbeatAction } from './heartbeat.js';
import { CLOSE } from './limits.js';
import { end, endSession, send, type Connection, type GatewayContext } from './connection.js';

export async function sweepSessions(ctx: GatewayContext): Promise<void> {
  const { mm, log } = ctx;
  const now = Date.now();
  const authenticated: Connection[] = [];
  for (const c of ctx.connections) {
    if (c.ending) continue;
    if (c.session && now >= c.session.expiresAtMs) {
      endSession(ctx, c, CLOSE.sessionExpired, c.session.expiresAtMs);
      continue;
    }
    if (c.user && now >= c.user.expiresAtMs) {
      endSession(ctx, c, CLOSE.sessionExpired, c.user.expiresAtMs);
      continue;
    }
    if (heartbeatAction(c, mm.maxMissedPongs) === 'close') {
      log.info(
        { conn_id: c.id, ip: c.ip, wallet: c.session?.walletAddress ?? null, missed_pongs: c.missedPongs },
        'connection closed: heartbeat pings not answered',
      );
      end(c, CLOSE.missedPongs, 'heartbeat not answered');
      continue;
    }
    if (send(ctx, c, { type: 'ping', timestamp: now })) c.missedPongs += 1;
    if (c.session) authenticated.push(c);
  }
  await endRevokedUsers(ctx);
  if (authenticated.length === 0) return;
  const ended = await endedSessionIds(
    ctx.orm.em.fork(),
    authenticated.map((c) => c.session!.id),
  );
  if (ended.size === 0) return;
  const at = Date.now();
  for (const c of authenticated) {
    if (c.session && ended.has(c.session.id)) {
      log.info(
        { conn_id: c.id, wallet: c.session.walletAddress, session_id: c.session.id },
        'session revoked or market maker removed: ending the connection',
      );
      endSession(ctx, c, CLOSE.removed, at);
    }
  }
}

/** Ends this process's connections of a removed market maker now (the gateway also tells the other processes: mm.removed). */
export function endWallet(ctx: GatewayContext, walletAddress: string): void {
  const at = Date.now();
  for (const c of ctx.connections) {
    if (c.session && c.session.walletAddress.toLowerCase() === walletAddress.toLowerCase()) {
      ctx.log.info(
        { conn_id: c.id, wallet: c.session.walletAddress, session_id: c.session.id },
        'market maker removed: ending the connection',
      );
      endSession(ctx, c, CLOSE.removed, at);
    }
  }
}

/**
 * Ends the user-channel connections of this process whose session was revoked or is no longer kept (one query),
 * of every user connection, or only of those of `sessionId` (a `sessions.changed` message).
 */
export async function endRevokedUsers(ctx: GatewayContext, sessionId?: string): Promise<void> {
  const users = [...ctx.connections].filter((c) => c.user && !c.ending && (sessionId === undefined || c.user.sessionId === sessionId));
  if (users.length === 0) return;
  const revoked = await revokedSessionIds(ctx.orm.em.fork(), [...new Set(users.map((c) => c.user!.sessionId))]);
  if (revoked.size === 0) return;
  const at = Date.now();
  for (const c of users) {
    if (c.user && revoked.has(c.user.sessionId)) {
      ctx.log.info(
        { conn_id: c.id, user_id: c.user.userId, session_id: c.user.sessionId },
        'session revoked: ending the user-channel connection',
      );
      endSession(ctx, c, CLOSE.revoked, at);
    }
  }
}
