import { defineEntity, p } from '@mikro-orm/core';

/** One row per worker process: proof, for operators and /readyz, that queue processing is alive. */
export const WorkerHeartbeatSchema = defineEntity({
  name: 'WorkerHeartbeat',
  tableName: 'worker_heartbeats',
  properties: {
    workerId: p.string().primary().fieldName('worker_id'),
    hostname: p.string(),
    pid: p.integer(),
    startedAt: p.datetime().fieldName('started_at'),
    lastSeenAt: p.datetime().fieldName('last_seen_at'),
    jobsProcessed: p.bigint('number').fieldName('jobs_processed'),
  },
});

export class WorkerHeartbeat extends WorkerHeartbeatSchema.class {}
WorkerHeartbeatSchema.setClass(WorkerHeartbeat);
