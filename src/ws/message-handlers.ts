// The handlers of the handshake's client messages: the challenge, the signed answer that opens a session
// (spec/asyncapi.yaml "Authentication"), and pong. The RFQ messages are rfq-stream.ts's; the gateway joins
// both into the one handler map that messages.ts requires complete.
import { WebSocket } from 'ws';
import { createMarketMakerSession } from '../domain/market-makers/market-makers.js';
import { newChallenge, verifyAuthResponse, type AuthFailure } from './handshake.js';
import { CLOSE, MAX_AUTH_ATTEMPTS } from './limits.js';
import type { ClientMessageHandlers } from './messages.js';
import { end, endSession, send, type Connection, type GatewayContext } from './connection.js';

/** setTimeout's largest delay; longer session timers are left to the heartbeat tick. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function messageHandlers(ctx: GatewayContext): Pick<ClientMessageHandlers<Connection>, 'auth' | 'auth_response' | 'pong'> {
  const { mm, orm, log, slots } = ctx;
  const authResult = (c: Connection, error: AuthFailure) =>
    send(ctx, c, { type: 'auth_result', success: false, error, session_token: null, expires_at: null });

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
      log.info(
        { conn_id: c.id, ip: c.ip, wallet: claimed, error: outcome.error, attempt: c.authAttempts },
        `authentication failed: ${outcome.error}`,
      );
      return void authResult(c, outcome.error);
    }
    const session = await createMarketMakerSession(orm.em.fork(), outcome.walletAddress, mm.sessionTtlMs);
    if (!session) {
      log.info(
        { conn_id: c.id, ip: c.ip, wallet: outcome.walletAddress, error: 'unknown_market_maker' },
        'authentication failed: unknown_market_maker',
      );
      return void authResult(c, 'unknown_market_maker');
    }
    if (c.ending || c.ws.readyState !== WebSocket.OPEN) {
      log.info(
        { conn_id: c.id, wallet: session.walletAddress, session_id: session.sessionId },
        'authenticated after the connection closed; the session token is valid but was not delivered',
      );
      return;
    }
    if (c.session) return void authResult(c, 'already_authenticated'); // two answers raced; keep the first session
    c.session = { id: session.sessionId, walletAddress: session.walletAddress, expiresAtMs: session.expiresAtMs };
    slots.authenticated(c.ip);
    ctx.onAuthenticated?.(c);
    if (c.authTimer) clearTimeout(c.authTimer);
    c.authTimer = null;
    const delay = session.expiresAtMs - Date.now();
    if (delay <= MAX_TIMER_MS)
      c.expiryTimer = setTimeout(() => endSession(ctx, c, CLOSE.sessionExpired, session.expiresAtMs), Math.max(0, delay));
    send(ctx, c, { type: 'auth_result', success: true, error: null, session_token: session.token, expires_at: session.expiresAt });
    log.info(
      { conn_id: c.id, ip: c.ip, wallet: session.walletAddress, session_id: session.sessionId, expires_at_ms: session.expiresAtMs },
      'market maker authenticated',
    );
  }

  return {
    auth: (c) => {
      if (c.session) return void authResult(c, 'already_authenticated');
      c.challenge = newChallenge(); // replaces any outstanding challenge
      send(ctx, c, { type: 'auth_challenge', nonce: c.challenge.nonce, timestamp: c.challenge.timestamp });
    },
    auth_response: onAuthResponse,
    pong: (c) => {
      c.missedPongs = 0;
    },
  };
}
