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
import type { Bus } from '../bus/bus.js';
import { onUserEvents } from '../bus/user-events.js';
import { replayFrom, userEventHeads, userEventsAfter } from '../domain/user-events/log.js';
import { send, type Connection, type GatewayContext } from './connection.js';
import type { Received } from './messages.js';
import { createUserAuth, type UserAuthSettings } from './user-auth.js';

/** How often each process compares its subscribed users' last sent seq with the log (the backstop of the bus). */
export const USER_EVENTS_POLL_MS = 1_000;
/** Rows read per query while catching up. */
const PAGE = 500;

export type UserStreamSettings = UserAuthSettings;

/** This process's subscribed connections, and them by user. */
interface Feed {
  subs: Map<Connection, Subscription>;
  byUser: Map<string, Set<Connection>>;
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
  const feed: Feed = { subs: new Map(), byUser: new Map() };
  const poll = createPoll(ctx, feed);
  const timer = setInterval(() => void poll(), USER_EVENTS_POLL_MS);
  timer.unref();
  const unsubscribe = onUserEvents(bus, () => void poll());
  return {
    auth: createUserAuth(ctx, settings),
    subscribe: (c, m) => subscribe(ctx, feed, c, m),
    forget(c) {
      const s = feed.subs.get(c);
      feed.subs.delete(c);
      if (s) {
        const set = feed.byUser.get(s.userId);
        set?.delete(c);
        if (set?.size === 0) feed.byUser.delete(s.userId);
      }
      c.user?.release();
    },
    stop() {
      clearInterval(timer);
      unsubscribe();
    },
  };
}

/** `subscribe` with channel `user`: the replay from `since_seq`, then what committed during it. */
async function subscribe(ctx: GatewayContext, { subs, byUser }: Feed, c: Connection, m: Received<'subscribe'>): Promise<void> {
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
    ctx.log.info({ conn_id: c.id, user_id: userId, since_seq: since, resync: !replay.ok }, 'user subscribed to the user channel');
  } finally {
    s.reading = false;
  }
  await pump(ctx, subs, c); // what committed during the replay
}

/** Sends the log's rows after the connection's last seq until none is left (one read in flight per connection). */
async function pump(ctx: GatewayContext, subs: Feed['subs'], c: Connection): Promise<void> {
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
    ctx.log.warn({ err, conn_id: c.id, user_id: s.userId }, 'user events could not be read; the next poll retries');
  } finally {
    s.reading = false;
  }
}

/** Compares every subscribed user's head with what its connections sent (one query), and pumps those behind. */
function createPoll(ctx: GatewayContext, { subs, byUser }: Feed): (users?: readonly string[]) => Promise<void> {
  let polling = false;
  let pollAgain = false;
  return async (users) => {
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
            if (s && s.lastSeq < head) void pump(ctx, subs, c);
          }
        }
      } while (pollAgain);
    } catch (err) {
      ctx.log.warn({ err }, 'user event heads could not be read; the next poll retries');
    } finally {
      polling = false;
    }
  };
}
