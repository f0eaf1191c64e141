// Worker heartbeats: one row per worker process.
import { sql } from 'kysely';
import { int8ToNumber } from '../int8.js';
import type { Db } from '../schema.js';

export class HeartbeatsRepository {
  constructor(private readonly db: Db) {}

  /** Upserts the worker's row; jobs_processed counts its heartbeats. */
  async record(h: { workerId: string; hostname: string; pid: number; startedAt: Date; lastSeenAt: Date }): Promise<void> {
    await this.db
      .insertInto('worker_heartbeats')
      .values({
        worker_id: h.workerId,
        hostname: h.hostname,
        pid: h.pid,
        started_at: h.startedAt.toISOString(),
        last_seen_at: h.lastSeenAt.toISOString(),
        jobs_processed: '1',
      })
      .onConflict((oc) =>
        oc.column('worker_id').doUpdateSet((eb) => ({
          last_seen_at: eb.ref('excluded.last_seen_at'),
          jobs_processed: eb('worker_heartbeats.jobs_processed', '+', '1'),
        })),
      )
      .execute();
  }

  /** The most recently seen worker (timestamps leave the database as epoch ms: drivers differ on timestamptz). */
  async latest(): Promise<{ worker_id: string; last_seen_ms: number } | undefined> {
    const row = await this.db
      .selectFrom('worker_heartbeats')
      .select(['worker_id', sql<string>`(extract(epoch from last_seen_at) * 1000)::bigint`.as('last_seen_ms')])
      .orderBy('last_seen_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && { worker_id: row.worker_id, last_seen_ms: int8ToNumber(row.last_seen_ms) };
  }

  /** The `limit` most recently seen workers, newest first (for the operator's status). */
  async recent(limit: number) {
    const rows = await this.db
      .selectFrom('worker_heartbeats')
      .select([
        'worker_id',
        'hostname',
        'pid',
        sql<string>`(extract(epoch from started_at) * 1000)::bigint`.as('started_ms'),
        sql<string>`(extract(epoch from last_seen_at) * 1000)::bigint`.as('last_seen_ms'),
      ])
      .orderBy('last_seen_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, started_ms: int8ToNumber(r.started_ms), last_seen_ms: int8ToNumber(r.last_seen_ms) }));
  }
}
