// `contests.changed {contest_id}`: published after the commit of every write that changes a public contest
// read (lobby, contest detail, leaderboard, top participants, popular entry): an entry, a contest created,
// a market resolved, a contest resolved, voided or paid, a handle or X account that boards show. Each API
// process drops its cached pages of that contest (and the lobby and top participants, which span contests);
// `contest_id: null` drops them all. At-most-once like every bus message: a lost one costs at most the
// pages' TTL, never a wrong answer past it.
import type { Bus } from './bus.js';

export interface ContestsChanged {
  /** The contest whose pages changed; null for a change that may show on any contest's pages. */
  contest_id: string | null;
}

/** Publishes after the commit; never throws (the bus reports a lost message to its onError). */
export async function publishContestsChanged(bus: Bus, contestId: string | null): Promise<void> {
  await bus.publish('contests.changed', { contest_id: contestId } satisfies ContestsChanged).catch(() => undefined);
}

/** Calls `fn` with the contest id (or null) of every `contests.changed`, local or remote; returns the unsubscribe. */
export function onContestsChanged(bus: Bus, fn: (contestId: string | null) => void): () => void {
  return bus.subscribe('contests.changed', (payload) => {
    const id = (payload as Partial<ContestsChanged> | null)?.contest_id;
    fn(typeof id === 'string' ? id : null);
  });
}
