// The user channel's `auth` (user-stream.ts; spec/asyncapi.yaml "User channel"): a session token, no challenge.
// A live user session takes a place under the per-user cap (this process's count and the shared lease),
// released once when the connection ends, and arms the session's expiry.
import { WebSocket } from 'ws';
import { hashToken, liveSessionByHash, plausibleToken } from '../domain/identity/sessions.js';
import type { SharedConnectionCap } from './connection-slots.js';
import { end, isAuthenticated, send, type Connection, type GatewayContext } from './connection.js';
import { CLOSE } from './limits.js';
import type { Received } from './messages.js';

/** setTimeout's largest delay; longer session timers are left to the heartbeat tick. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface UserAuthSettings {
  /** USER_WS_MAX_PER_USER. */
  maxPerUser: number;
  /** The per-user cap across processes (keyed `user:<id>`); counted per process when absent. */
  sharedCap: SharedConnectionCap;
}

type AuthError = 'invalid_session_token' | 'too_many_connections' | 'already_authenticated';

export function createUserAuth(ctx: GatewayContext, settings: UserAuthSettings) {
  const { log } = ctx;
  const localCount = new Map<string, number>();

  const release = (userId: string, shared: () => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      shared();
      const n = (localCount.get(userId) ?? 1) - 1;
      if (n <= 0) localCount.delete(userId);
      else localCount.set(userId, n);
    };
  };

  const authFailed = (c: Connection, error: AuthError) =>
    send(ctx, c, { type: 'auth_result', success: false, error, session_token: null, expires_at: null });

  return async (c: Connection, m: Received<'auth'> & { session_token: string }): Promise<void> => {
    if (isAuthenticated(c)) return void authFailed(c, 'already_authenticated');
    const token = m.session_token;
    const live = plausibleToken(token) ? await liveSessionByHash(ctx.orm.em.fork(), hashToken(token)) : null;
    if (!live || live.principal.kind !== 'user') {
      log.info({ conn_id: c.id, ip: c.ip }, 'user authentication failed: invalid_session_token');
      return void authFailed(c, 'invalid_session_token');
    }
    const { userId, sessionId } = live.principal;
    const local = localCount.get(userId) ?? 0;
    const shared = local < settings.maxPerUser ? await settings.sharedCap.acquire(`user:${userId}`) : null;
    if (!shared || c.ending || c.ws.readyState !== WebSocket.OPEN || isAuthenticated(c)) {
      shared?.();
      if (c.ending || c.ws.readyState !== WebSocket.OPEN) return;
      if (isAuthenticated(c)) return void authFailed(c, 'already_authenticated');
      log.warn({ conn_id: c.id, ip: c.ip, user_id: userId, limit: settings.maxPerUser }, 'user connection refused: too_many_connections');
      authFailed(c, 'too_many_connections');
      return end(c, CLOSE.policyViolation, 'too many user-channel connections');
    }
    localCount.set(userId, (localCount.get(userId) ?? 0) + 1);
    c.user = { userId, sessionId, expiresAtMs: live.expiresAtMs, release: release(userId, shared) };
    ctx.slots.authenticated(c.ip);
    if (c.authTimer) clearTimeout(c.authTimer);
    c.authTimer = null;
    armExpiry(ctx, c, live.expiresAtMs);
    send(ctx, c, {
      type: 'auth_result',
      success: true,
      error: null,
      session_token: token,
      expires_at: Math.floor(live.expiresAtMs / 1000),
    });
    log.info({ conn_id: c.id, ip: c.ip, user_id: userId, session_id: sessionId }, 'user authenticated (user channel)');
  };
}

/** At the session's expiry: AUTH_EXPIRED, then the connection ends (beyond setTimeout's reach: the heartbeat tick). */
function armExpiry(ctx: GatewayContext, c: Connection, expiresAtMs: number): void {
  const delay = expiresAtMs - Date.now();
  if (delay > MAX_TIMER_MS) return;
  c.expiryTimer = setTimeout(
    () => {
      if (c.ending) return;
      send(ctx, c, { type: 'AUTH_EXPIRED', expired_at_ms: expiresAtMs });
      end(c, CLOSE.sessionExpired, 'session expired');
    },
    Math.max(0, delay),
  );
}
