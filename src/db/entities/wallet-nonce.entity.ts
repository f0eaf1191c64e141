import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

/** A Sign-In with Ethereum nonce: issued by GET /v1/auth/wallet/nonce, used once. */
export const WalletNonceSchema = defineEntity({
  name: 'WalletNonce',
  tableName: 'wallet_nonces',
  properties: {
    nonce: p.text().primary(),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    expiresAt: timestamptz().fieldName('expires_at'),
    usedAt: timestamptz().fieldName('used_at').nullable(),
  },
});
