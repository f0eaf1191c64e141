import { defineEntity, p } from '@mikro-orm/core';

/** A wallet registered by an operator as a market maker (EIP-55 checksum form). Removal sets removedAt. */
export const MarketMakerSchema = defineEntity({
  name: 'MarketMaker',
  tableName: 'market_makers',
  properties: {
    walletAddress: p.text().primary().fieldName('wallet_address'),
    name: p.text(),
    createdAt: p.datetime().fieldName('created_at').defaultRaw('now()'),
    removedAt: p.datetime().fieldName('removed_at').nullable(),
  },
});

export class MarketMaker extends MarketMakerSchema.class {}
MarketMakerSchema.setClass(MarketMaker);
