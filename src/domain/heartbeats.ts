import { hostname } from 'node:os';
import type { Em } from '../db/orm.js';
import { WorkerHeartbeat } from '../db/entities/index.js';

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
  const row = await em.findOne(WorkerHeartbeat, {}, { orderBy: { lastSeenAt: 'desc' } });
  return row ? { workerId: row.workerId, lastSeenAt: row.lastSeenAt } : null;
}
