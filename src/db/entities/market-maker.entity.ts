import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

/** A wallet registered by an operator as a market maker (EIP-55 checksum form). Removal sets removedAt. */
export const MarketMakerSchema = defineEntity({
  name: 'MarketMaker',
  tableName: 'market_makers',
  properties: {
    walletAddress: p.text().primary().fieldName('wallet_address'),
    name: p.text(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    removedAt: timestamptz().fieldName('removed_at').nullable(),
  },
});

export class MarketMaker extends MarketMakerSchema.class {}
MarketMakerSchema.setClass(MarketMaker);

/** Market-maker protection (docs/market-makers.md "MMP"): limits per interval, counters, and the trip. */
export const MmProtectionSchema = defineEntity({
  name: 'MmProtection',
  tableName: 'mm_protections',
  properties: {
    makerAddress: p.text().primary().fieldName('maker_address'),
    intervalMs: p.bigint('string').fieldName('interval_ms'),
    maxFills: p.integer().fieldName('max_fills').nullable(),
    maxLiability: p.bigint('string').fieldName('max_liability').nullable(),
    windowStartMs: p.bigint('string').fieldName('window_start_ms').default('0'),
    windowFills: p.integer().fieldName('window_fills').default(0),
    windowLiability: p.bigint('string').fieldName('window_liability').default('0'),
    trippedAtMs: p.bigint('string').fieldName('tripped_at_ms').nullable(),
  },
});
