import { hostname } from 'node:os';
import type { Em } from '../db/orm.js';
import { repos } from '../db/repos.js';

export interface WorkerIdentity {
  workerId: string;
  startedAt: Date;
}

/** Upserts this worker's row; jobs_processed counts heartbeats processed by it. */
export async function recordHeartbeat(em: Em, me: WorkerIdentity, now = new Date()): Promise<void> {
  await repos(em).heartbeats.record({
    workerId: me.workerId,
    hostname: hostname(),
    pid: process.pid,
    startedAt: me.startedAt,
    lastSeenAt: now,
  });
}

export async function latestHeartbeat(em: Em): Promise<{ workerId: string; lastSeenAt: Date } | null> {
  const row = await repos(em).heartbeats.latest();
  return row ? { workerId: row.worker_id, lastSeenAt: new Date(row.last_seen_ms) } : null;
}

export interface WorkerSeen {
  workerId: string;
  hostname: string;
  pid: number;
  startedAtMs: number;
  lastSeenAtMs: number;
}

/** The `limit` most recently seen worker processes, newest first. */
export async function recentHeartbeats(em: Em, limit: number): Promise<WorkerSeen[]> {
  const rows = await repos(em).heartbeats.recent(limit);
  return rows.map((r) => ({
    workerId: r.worker_id,
    hostname: r.hostname,
    pid: r.pid,
    startedAtMs: r.started_ms,
    lastSeenAtMs: r.last_seen_ms,
  }));
}
