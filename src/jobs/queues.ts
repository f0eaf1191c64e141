// Queue nouns and job payloads, shared by producers (src/) and processors (workers/).
export const QUEUE = {
  /** Housekeeping: worker heartbeats (later: idempotency-key pruning). */
  system: 'system',
} as const;
export type QueueNoun = (typeof QUEUE)[keyof typeof QUEUE];

export const JOB = {
  recordHeartbeat: 'record-heartbeat',
} as const;

export interface RecordHeartbeatJob {
  /** Unix ms when the heartbeat was requested (scheduler tick or a manual probe). */
  requested_at_ms: number;
}

export const HEARTBEAT_EVERY_MS = 10_000;
