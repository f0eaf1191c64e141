// `user.events {}`: published after the commit of a write that recorded user events (the user channel's durable log,
// docs/user-channel.md), by the orchestration layer (src/trading/). It carries no events: every API process then
// compares its subscribed users' heads with what it sent and reads the log (src/ws/user-stream.ts). At-most-once like
// every bus message: a lost one costs at most one USER_EVENTS_POLL_MS of latency, never a frame.
import type { Bus } from './bus.js';

/** Publishes after the commit; never throws (the bus reports a lost message to its onError). */
export async function publishUserEvents(bus: Bus): Promise<void> {
  await bus.publish('user.events', {}).catch(() => undefined);
}

/** Calls `fn` on every `user.events`, local or remote; returns the unsubscribe. */
export function onUserEvents(bus: Bus, fn: () => void): () => void {
  return bus.subscribe('user.events', () => fn());
}
