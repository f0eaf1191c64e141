import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

/** One row per worker process: proof, for operators and /readyz, that queue processing is alive. */
export const WorkerHeartbeatSchema = defineEntity({
  name: 'WorkerHeartbeat',
  tableName: 'worker_heartbeats',
  properties: {
    workerId: p.text().primary().fieldName('worker_id'),
    hostname: p.text(),
    pid: p.integer(),
    startedAt: timestamptz().fieldName('started_at'),
    lastSeenAt: timestamptz().fieldName('last_seen_at'),
    jobsProcessed: p.bigint('string').fieldName('jobs_processed').default(0),
  },
});

export class WorkerHeartbeat extends WorkerHeartbeatSchema.class {}
WorkerHeartbeatSchema.setClass(WorkerHeartbeat);
