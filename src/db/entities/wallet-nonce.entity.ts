import { defineEntity, p } from '@mikro-orm/core';

/** A Sign-In with Ethereum nonce: issued by GET /v1/auth/wallet/nonce, used once. */
export const WalletNonceSchema = defineEntity({
  name: 'WalletNonce',
  tableName: 'wallet_nonces',
  properties: {
    nonce: p.text().primary(),
    createdAt: p.datetime().fieldName('created_at').defaultRaw('now()'),
    expiresAt: p.datetime().fieldName('expires_at'),
    usedAt: p.datetime().fieldName('used_at').nullable(),
  },
});
