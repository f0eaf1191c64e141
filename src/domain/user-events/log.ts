// The user channel's durable event log (docs/user-channel.md): the events are written by database triggers in the
// statement that changes the account (Migration20261130010000_user_events), numbered 1, 2, 3... per user.
// Decided in SQL there: which writes are a user's events (user_events_on_ledger, _on_operations, _on_rfqs, _on_quotes,
// _on_positions, _on_entries) and their payloads (user_events_append numbers them). Here they are read as
// `user_event` frames (the generated AsyncAPI type), replayed from a client's since_seq, and pruned.
import type { ResyncRequiredMessage, UserEventMessage } from '../../../generated/asyncapi/types.js';
import type { Em } from '../../db/orm.js';
import { type UserEventRow } from '../../db/repositories/user-events.repository.js';
import { repos } from '../../db/repos.js';

/** More missed events than this on subscribe: resync_required instead of a replay (spec/asyncapi.yaml "User channel"). */
export const REPLAY_MAX = 1000;

export type UserEventFrame = UserEventMessage;

/** The one builder of a `user_event` frame: a row of the log as the AsyncAPI types it. */
export function userEventFrame(row: UserEventRow): UserEventFrame {
  return { type: 'user_event', seq: row.seq, kind: row.kind, at_ms: row.at_ms, payload: row.payload as UserEventFrame['payload'] };
}

/** The user's events after `afterSeq`, oldest first, at most `limit`, as frames. */
export async function userEventsAfter(em: Em, userId: string, afterSeq: number, limit: number): Promise<UserEventFrame[]> {
  return (await repos(em).userEvents.eventsAfter(userId, afterSeq, limit)).map(userEventFrame);
}

/** The last seq of each user (0 for a user without events). */
export async function userEventHeads(em: Em, userIds: readonly string[]): Promise<Map<string, number>> {
  const heads = await repos(em).userEvents.heads(userIds);
  for (const u of userIds) if (!heads.has(u)) heads.set(u, 0);
  return heads;
}

export type Replay = { ok: true; frames: UserEventFrame[] } | { ok: false; resync: ResyncRequiredMessage };

/**
 * What a subscriber that processed up to `sinceSeq` missed: every event after it (the live feed continues after the
 * last), or resync_required (continue after resume_seq) when they are more than REPLAY_MAX, no longer kept
 * (USER_EVENTS_RETENTION_MS), or `sinceSeq` is beyond the user's newest event.
 */
export async function replayFrom(em: Em, userId: string, sinceSeq: number): Promise<Replay> {
  const head = (await userEventHeads(em, [userId])).get(userId) ?? 0;
  const resync = (): Replay => ({ ok: false, resync: { type: 'resync_required', since_seq: sinceSeq, resume_seq: head } });
  if (sinceSeq > head || head - sinceSeq > REPLAY_MAX) return resync();
  if (sinceSeq === head) return { ok: true, frames: [] };
  const frames = await userEventsAfter(em, userId, sinceSeq, REPLAY_MAX);
  if (frames[0]?.seq !== sinceSeq + 1) return resync(); // pruned
  return { ok: true, frames };
}

/** Deletes events recorded before `beforeMs`, in batches of `batch`; returns how many. */
export async function pruneUserEvents(em: Em, beforeMs: number, batch = 10_000): Promise<number> {
  const repo = repos(em).userEvents;
  let total = 0;
  for (;;) {
    const n = await repo.prune(beforeMs, batch);
    total += n;
    if (n < batch) return total;
  }
}
