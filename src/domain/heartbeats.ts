import { hostname } from 'node:os';
import type { Em } from '../db/orm.js';

export interface WorkerIdentity {
  workerId: string;
  startedAt: Date;
}

/** Upserts this worker's row; jobs_processed counts heartbeats processed by it. */
export async function recordHeartbeat(em: Em, me: WorkerIdentity, now = new Date()): Promise<void> {
  await em.getConnection().execute(
    `insert into worker_heartbeats (worker_id, hostname, pid, started_at, last_seen_at, jobs_processed)
     values (?, ?, ?, ?, ?, 1)
     on conflict (worker_id) do update
       set last_seen_at = excluded.last_seen_at, jobs_processed = worker_heartbeats.jobs_processed + 1`,
    [me.workerId, hostname(), process.pid, me.startedAt, now],
  );
}

export async function latestHeartbeat(em: Em): Promise<{ workerId: string; lastSeenAt: Date } | null> {
  const rows = await em.getConnection().execute<Array<{ worker_id: string; last_seen_at: Date | string }>>(
    'select worker_id, last_seen_at from worker_heartbeats order by last_seen_at desc limit 1',
  );
  const row = rows[0];
  return row ? { workerId: row.worker_id, lastSeenAt: new Date(row.last_seen_at) } : null;
}
