// Live sessions remembered per process for SESSION_CACHE_MS, so a signed-in read does not look its token up
// in PostgreSQL on every request (the lookup was most of a signed-in cached read's cost: issue 14).
// Freshness: a change to a session drops it from every process's cache through the bus topic
// `sessions.changed` (src/bus/session-events.ts, published by src/trading/identity-lifecycle.ts), and nothing
// is kept longer than SESSION_CACHE_MS even when a bus message is lost:
//   logout                  {session_id}  the process that revoked it drops it before it answers 204;
//                                         every other process when the bus delivers (milliseconds)
//   Privy sign-in           {user_id}     the user's wallet may have changed: every session of that user
//   market maker removed    mm.removed    {wallet}: every session of that maker (src/trading/rfq-lifecycle.ts)
// An expired session is never served: an entry also ends at the session's own expiry. Unknown tokens are
// not remembered (a stream of random tokens cannot fill the cache) and a full cache drops its oldest entry.
import type { Bus } from '../bus/bus.js';
import type { LiveSession, SessionPrincipal } from '../domain/identity/sessions.js';

/** Entries one process keeps at most (about 300 bytes each). */
const MAX_ENTRIES = 50_000;

export interface SessionCache {
  /** The remembered live session of a presented token, or undefined. */
  get(key: string, nowMs?: number): SessionPrincipal | undefined;
  /**
   * Counts the changes heard so far. Read it before a lookup and hand it to set(): a lookup that raced a
   * change (it may have read the session just before a logout committed) is then not remembered.
   */
  readonly generation: number;
  set(key: string, live: LiveSession, lookedUpAt: number, nowMs?: number): void;
  /** Stops listening to the bus. */
  close(): void;
  readonly size: number;
}

interface Entry {
  principal: SessionPrincipal;
  /** min(cached at + ttl, session expiry). */
  untilMs: number;
}

/** What a change can name: the session, the user, or the maker's wallet. */
const subjectsOf = (p: SessionPrincipal): string[] =>
  p.kind === 'user' ? [`s:${p.sessionId}`, `u:${p.userId}`] : [`s:${p.sessionId}`, `w:${p.walletAddress.toLowerCase()}`];

export function createSessionCache(ttlMs: number, bus: Bus, log: { warn(obj: object, msg: string): void }): SessionCache {
  const entries = new Map<string, Entry>();
  // The keys of the entries of each subject, so a change drops its entries without scanning the cache.
  const bySubject = new Map<string, Set<string>>();
  const remove = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    for (const subject of subjectsOf(e.principal)) {
      const keys = bySubject.get(subject);
      keys?.delete(key);
      if (keys?.size === 0) bySubject.delete(subject);
    }
  };
  const drop = (subject: string) => {
    for (const key of [...(bySubject.get(subject) ?? [])]) remove(key);
  };
  const clear = () => (entries.clear(), bySubject.clear());
  let generation = 0;
  const onChange = (payload: unknown) => {
    generation++;
    const p = payload as Partial<Record<'session_id' | 'user_id', unknown>> | null;
    if (typeof p?.session_id === 'string') drop(`s:${p.session_id}`);
    else if (typeof p?.user_id === 'string') drop(`u:${p.user_id}`);
    else {
      log.warn({ payload }, 'malformed sessions.changed bus message: every cached session dropped');
      clear();
    }
  };
  const onMmRemoved = (payload: unknown) => {
    generation++;
    const wallet = (payload as { wallet?: unknown } | null)?.wallet;
    if (typeof wallet === 'string') drop(`w:${wallet.toLowerCase()}`);
    else clear();
  };
  const unsubscribe = ttlMs > 0 ? [bus.subscribe('sessions.changed', onChange), bus.subscribe('mm.removed', onMmRemoved)] : [];

  return {
    get(key, nowMs = Date.now()) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (nowMs < e.untilMs) return e.principal;
      remove(key);
      return undefined;
    },
    get generation() {
      return generation;
    },
    set(key, live, lookedUpAt, nowMs = Date.now()) {
      if (ttlMs <= 0 || lookedUpAt !== generation) return;
      const untilMs = Math.min(nowMs + ttlMs, live.expiresAtMs);
      if (untilMs <= nowMs) return;
      remove(key);
      if (entries.size >= MAX_ENTRIES) remove(entries.keys().next().value!);
      const principal = Object.freeze({ ...live.principal });
      entries.set(key, { principal, untilMs });
      for (const subject of subjectsOf(principal)) {
        let keys = bySubject.get(subject);
        if (!keys) bySubject.set(subject, (keys = new Set()));
        keys.add(key);
      }
    },
    close() {
      for (const off of unsubscribe) off();
      clear();
    },
    get size() {
      return entries.size;
    },
  };
}
