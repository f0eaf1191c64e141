import { defineEntity, p } from '@mikro-orm/core';

// The user channel's event log (migration ..._user_events): written only by the migration's triggers, read by
// src/db/repositories/user-events.repository.ts, pruned by the user-events job.

/** A user's last event seq (1, 2, 3... per user). */
export const UserEventHeadSchema = defineEntity({
  name: 'UserEventHead',
  tableName: 'user_event_heads',
  properties: {
    userId: p.uuid().primary().fieldName('user_id'),
    seq: p.bigint('string'),
  },
});

export const USER_EVENT_KINDS = ['balance', 'operation', 'rfq', 'position', 'contest'] as const;

/** One change to a user's account, numbered per user (spec/asyncapi.yaml `user_event`). */
export const UserEventSchema = defineEntity({
  name: 'UserEvent',
  tableName: 'user_events',
  properties: {
    userId: p.uuid().primary().fieldName('user_id'),
    seq: p.bigint('string').primary().autoincrement(false),
    kind: p.enum(USER_EVENT_KINDS),
    atMs: p.bigint('string').fieldName('at_ms'),
    payload: p.json<unknown>().columnType('jsonb'),
  },
});
