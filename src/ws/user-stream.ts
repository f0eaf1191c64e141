// The user channel on the gateway's WebSocket (spec/asyncapi.yaml "User channel"; docs/user-channel.md): any
// signed-in user authenticates with its session token (`auth` with `session_token`, no challenge), subscribes with
// `since_seq`, and receives its account's `user_event` frames: the replay of what it missed, then live ones.
//
// The durable per-user event log in PostgreSQL is the only source of frames (src/domain/user-events/log.ts): each
// connection remembers the last seq it sent and only ever sends the log's rows after it, in order, so a frame is
// never skipped, repeated or reordered, whichever process serves the connection and whatever the bus loses. The bus
// (`user.events`, published after commit by src/trading/) and a poll of the subscribed users' heads every
// USER_EVENTS_POLL_MS (one query per process) only say when to look. Each connection reads on its own (one read in
// flight per connection) and sends without waiting, so a slow socket (dropped past MAX_BUFFERED_BYTES) delays no one.
import { WebSocket } from 'ws';
import type { Bus } from '../bus/bus.js';
import { onUserEvents } from '../bus/user-events.js';
import { hashToken, liveSessionByHash, plausibleToken } from '../domain/identity/sessions.js';
import { replayFrom, userEventHeads, userEventsAfter } from '../domain/user-events/log.js';
import type { SharedConnectionCap } from './connection-slots.js';
import { end, isAuthenticated, send, type Connection, type GatewayContext } from './connection.js';
import { CLOSE } from './limits.js';
import type { Received } from './messages.js';

/** How often each process compares its subscribed users' last sent seq with the log (the backstop of the bus). */
export const USER_EVENTS_POLL_MS = 1_000;
/** Rows read per query while catching up. */
const PAGE = 500;
/** setTimeout's largest delay; longer session timers are left to the heartbeat tick. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface UserStreamSettings {
  /** USER_WS_MAX_PER_USER. */
  maxPerUser: number;
  /** The per-user cap across processes (keyed `user:<id>`); counted per process when absent. */
  sharedCap: SharedConnectionCap;
}

interface Subscription {
  userId: string;
  /** The last seq sent on the connection. */
  lastSeq: number;
  reading: boolean;
  again: boolean;
}

export interface UserStream {
  /** `auth` with a session_token. */
  auth(c: Connection, m: Received<'auth'> & { session_token: string }): Promise<void>;
  /** `subscribe` with channel `user`. */
  subscribe(c: Connection, m: Received<'subscribe'>): Promise<void>;
  forget(c: Connection): void;
  stop(): void;
}

export function createUserStream(ctx: GatewayContext, bus: Bus, settings: UserStreamSettings): UserStream {
  const { log } = ctx;
  const subs = new Map<Connection, Subscription>();
  const byUser = new Map<string, Set<Connection>>();
  const localCount = new Map<string, number>();

  /** Sends the log's rows after the connection's last seq until none is left (one read in flight per connection). */
  const pump = async (c: Connection): Promise<void> => {
    const s = subs.get(c);
    if (!s) return;
    if (s.reading) return void (s.again = true);
    s.reading = true;
    try {
      for (;;) {
        s.again = false;
        const frames = await userEventsAfter(ctx.orm.em.fork(), s.userId, s.lastSeq, PAGE);
        if (c.ending || subs.get(c) !== s) return;
        for (const f of frames) {
          if (f.seq !== s.lastSeq + 1) {
            // Pruned under a connected client (it fell more than USER_EVENTS_RETENTION_MS behind): say so, go on.
            send(ctx, c, { type: 'resync_required', since_seq: s.lastSeq, resume_seq: f.seq - 1 });
          }
          send(ctx, c, f);
          s.lastSeq = f.seq;
        }
        if (frames.length < PAGE && !s.again) return;
      }
    } catch (err) {
      log.warn({ err, conn_id: c.id, user_id: s.userId }, 'user events could not be read; the next poll retries');
    } finally {
      s.reading = false;
    }
  };

  /** Compares every subscribed user's head with what its connections sent (one query), and pumps those behind. */
  let polling = false;
  let pollAgain = false;
  const poll = async (users?: readonly string[]): Promise<void> => {
    if (polling) return void (pollAgain = true);
    polling = true;
    try {
      do {
        pollAgain = false;
        const ids = users ?? [...byUser.keys()];
        if (ids.length === 0) return;
        const heads = await userEventHeads(ctx.orm.em.fork(), ids);
        for (const [userId, head] of heads) {
          for (const c of byUser.get(userId) ?? []) {
            const s = subs.get(c);
            if (s && s.lastSeq < head) void pump(c);
          }
        }
      } while (pollAgain);
    } catch (err) {
      log.warn({ err }, 'user event heads could not be read; the next poll retries');
    } finally {
      polling = false;
    }
  };

  const timer = setInterval(() => void poll(), USER_EVENTS_POLL_MS);
  timer.unref();
  const unsubscribe = onUserEvents(bus, () => void poll());

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

  const authFailed = (c: Connection, error: 'invalid_session_token' | 'too_many_connections' | 'already_authenticated') =>
    send(ctx, c, { type: 'auth_result', success: false, error, session_token: null, expires_at: null });

  return {
    async auth(c, m) {
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
      const delay = live.expiresAtMs - Date.now();
      if (delay <= MAX_TIMER_MS) {
        c.expiryTimer = setTimeout(
          () => {
            if (c.ending) return;
            send(ctx, c, { type: 'AUTH_EXPIRED', expired_at_ms: live.expiresAtMs });
            end(c, CLOSE.sessionExpired, 'session expired');
          },
          Math.max(0, delay),
        );
      }
      send(ctx, c, { type: 'auth_result', success: true, error: null, session_token: token, expires_at: Math.floor(live.expiresAtMs / 1000) });
      log.info({ conn_id: c.id, ip: c.ip, user_id: userId, session_id: sessionId }, 'user authenticated (user channel)');
    },

    async subscribe(c, m) {
      if (!c.user) {
        return void send(ctx, c, {
          type: 'error',
          code: 'not_authenticated',
          message: 'authenticate with auth {session_token} (a user session) before subscribing to channel user',
        });
      }
      const { userId } = c.user;
      const since = m.since_seq ?? 0;
      subs.delete(c); // a second subscribe starts over from its own since_seq
      send(ctx, c, { type: 'subscribed', channel: 'user', since_seq: since, assets: [], durations: [], cancel_on_disconnect: false });
      const s: Subscription = { userId, lastSeq: since, reading: true, again: false };
      subs.set(c, s);
      let set = byUser.get(userId);
      if (!set) byUser.set(userId, (set = new Set()));
      set.add(c);
      try {
        const replay = await replayFrom(ctx.orm.em.fork(), userId, since);
        if (c.ending || subs.get(c) !== s) return;
        if (!replay.ok) {
          send(ctx, c, replay.resync);
          s.lastSeq = replay.resync.resume_seq;
        } else {
          for (const f of replay.frames) send(ctx, c, f);
          s.lastSeq = replay.frames.at(-1)?.seq ?? since;
        }
        log.info({ conn_id: c.id, user_id: userId, since_seq: since, resync: !replay.ok }, 'user subscribed to the user channel');
      } finally {
        s.reading = false;
      }
      await pump(c); // what committed during the replay
    },

    forget(c) {
      const s = subs.get(c);
      subs.delete(c);
      if (s) {
        const set = byUser.get(s.userId);
        set?.delete(c);
        if (set?.size === 0) byUser.delete(s.userId);
      }
      c.user?.release();
    },

    stop() {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
