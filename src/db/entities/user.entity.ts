import { defineEntity, p } from '@mikro-orm/core';
import { timestamptz } from './columns.js';

/** A person using the service. Created by the first Privy exchange or the first wallet sign-in. */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary(),
    /** Privy DID (`did:privy:...`); null for users who only ever signed in with their wallet. */
    privySub: p.text().fieldName('privy_sub').nullable(),
    /** EIP-55 checksummed; unique case-insensitively. */
    walletAddress: p.text().fieldName('wallet_address'),
    /** Public handle; unique case-insensitively (index users_handle_lower_key). */
    handle: p.text().nullable(),
    xHandle: p.text().fieldName('x_handle').nullable(),
    xAvatarUrl: p.text().fieldName('x_avatar_url').nullable(),
    /** Custodial deposit address index (m/44'/60'/0'/0/<index> of DEPOSIT_MNEMONIC), from users_deposit_index_seq. */
    depositIndex: p.bigint('string').fieldName('deposit_index').defaultRaw("nextval('users_deposit_index_seq')"),
    createdAt: timestamptz().fieldName('created_at').defaultRaw('now()'),
    updatedAt: timestamptz().fieldName('updated_at').defaultRaw('now()'),
  },
});

export class User extends UserSchema.class {}
UserSchema.setClass(User);
