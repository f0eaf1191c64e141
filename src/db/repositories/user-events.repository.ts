// The user channel's event log (Migration20261130010000_user_events): the rows are written by the migration's
// triggers in the statement that changes the account; here they are only read and pruned.
import { sql } from 'kysely';
import { int8ToNumber } from '../int8.js';
import type { Db } from '../schema.js';
import { anyOf } from '../sql.js';

export interface UserEventRow {
  seq: number;
  kind: 'balance' | 'operation' | 'rfq' | 'position' | 'contest';
  at_ms: number;
  payload: unknown;
}

export class UserEventsRepository {
  constructor(private readonly db: Db) {}

  /** The user's events with seq > afterSeq, oldest first, at most `limit`. */
  async eventsAfter(userId: string, afterSeq: number, limit: number): Promise<UserEventRow[]> {
    const rows = await this.db
      .selectFrom('user_events')
      .select(['seq', 'kind', 'at_ms', 'payload'])
      .where('user_id', '=', userId)
      .where('seq', '>', String(afterSeq))
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: int8ToNumber(r.seq), kind: r.kind, at_ms: int8ToNumber(r.at_ms), payload: r.payload }));
  }

  /** The last seq of each user that has any event (users without one are absent). */
  async heads(userIds: readonly string[]): Promise<Map<string, number>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('user_event_heads')
      .select(['user_id', 'seq'])
      .where('user_id', '=', anyOf(userIds, 'uuid'))
      .execute();
    return new Map(rows.map((r) => [r.user_id, int8ToNumber(r.seq)]));
  }

  /** Deletes up to `limit` events recorded before `beforeMs` (the retention); returns how many. */
  async prune(beforeMs: number, limit: number): Promise<number> {
    const r = await sql<{ n: string }>`
      with gone as (
        delete from user_events where (user_id, seq) in (select user_id, seq from user_events where at_ms < ${beforeMs} limit ${limit})
        returning 1
      )
      select count(*)::text as n from gone`.execute(this.db);
    return Number(r.rows[0]?.n ?? 0);
  }
}
