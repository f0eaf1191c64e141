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
