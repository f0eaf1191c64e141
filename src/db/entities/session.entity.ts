import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

/** A bearer session. Only the SHA-256 of the token is stored: a database dump holds no usable credential. */
export const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.uuid().primary(),
    tokenHash: p.uint8array().fieldName('token_hash'),
    kind: p.enum(['user', 'market_maker'] as const),
    userId: p.uuid().fieldName('user_id').nullable(),
    marketMakerAddress: p.text().fieldName('market_maker_address').nullable(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    expiresAt: timestamptz().fieldName('expires_at'),
    revokedAt: timestamptz().fieldName('revoked_at').nullable(),
  },
});

export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);
