import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

/**
 * A market: an RFQ window (asset, duration_secs, start_at_ms) or, later, a contest market. market_id comes
 * from the shared sequence market_id_seq. RFQ windows are written by src/domain/markets with
 * insert ... on conflict do nothing, never through the unit of work.
 */
export const MarketSchema = defineEntity({
  name: 'Market',
  tableName: 'markets',
  properties: {
    marketId: p.bigint('string').primary().fieldName('market_id').defaultRaw("nextval('market_id_seq')"),
    kind: p.enum(['rfq_window', 'contest'] as const),
    asset: p.text().nullable(),
    durationSecs: p.integer().fieldName('duration_secs').nullable(),
    startAtMs: p.bigint('string').fieldName('start_at_ms').nullable(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
  },
});

export class Market extends MarketSchema.class {}
MarketSchema.setClass(Market);
