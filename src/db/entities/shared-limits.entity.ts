import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

// Limits shared by the API processes of the PostgreSQL-only deployment (migration ..._shared_limits).

/** Fixed-window request counters (src/http/rate-limit-store.ts). */
export const RateLimitCounterSchema = defineEntity({
  name: 'RateLimitCounter',
  tableName: 'rate_limit_counters',
  properties: {
    key: p.text().primary(),
    hits: p.integer(),
    resetAt: timestamptz().fieldName('reset_at'),
  },
});

/** Open market-maker WebSocket connections per client IP, leased until expires_at (src/ws/connection-slots.ts). */
export const WsConnectionSlotSchema = defineEntity({
  name: 'WsConnectionSlot',
  tableName: 'ws_connection_slots',
  properties: {
    ip: p.text().primary(),
    holder: p.text().primary(),
    process: p.text(),
    expiresAt: timestamptz().fieldName('expires_at'),
  },
});
