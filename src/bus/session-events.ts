// `sessions.changed {session_id} | {user_id}`: published after the commit of a change to sessions, by the
// orchestration layer (src/trading/identity-lifecycle.ts); every API process's session cache drops what it names
// (src/http/session-cache.ts). At-most-once like every bus message: a lost one costs at most SESSION_CACHE_MS.
import type { Bus } from './bus.js';

export type SessionChange = { session_id: string } | { user_id: string };

/** Publishes a change to sessions (after its commit); every process's cache drops what it names. */
export function publishSessionChange(bus: Bus, change: SessionChange): Promise<void> {
  return bus.publish('sessions.changed', change);
}
