// Users: created by the first Privy exchange or wallet sign-in, found again by Privy subject or wallet.
// Uniqueness (subject, wallet, handle in any letter case) lives in unique indexes; these functions use
// INSERT ... ON CONFLICT and re-reads instead of check-then-insert, so concurrent first sign-ins of one
// person converge on one row.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { isUniqueViolation } from '../database-errors.js';
import { Conflict, NotFound } from '../errors.js';
import type { PrivyIdentity } from './privy-token.js';
import { repos } from '../../db/repos.js';

export interface UserRecord {
  id: string;
  privySub: string | null;
  walletAddress: string;
  handle: string | null;
  xHandle: string | null;
  xAvatarUrl: string | null;
}

interface UserRow {
  id: string;
  privy_sub: string | null;
  wallet_address: string;
  handle: string | null;
  x_handle: string | null;
  x_avatar_url: string | null;
}

const MAX_ATTEMPTS = 4;

const toRecord = (r: UserRow): UserRecord => ({
  id: r.id,
  privySub: r.privy_sub,
  walletAddress: r.wallet_address,
  handle: r.handle,
  xHandle: r.x_handle,
  xAvatarUrl: r.x_avatar_url,
});

function walletInUse(): Conflict {
  return new Conflict(
    'WALLET_IN_USE',
    "the identity token's wallet already belongs to another account of this service; sign in with that account, or link a different wallet in Privy",
  );
}

/**
 * The user of a verified Privy identity: the one with this subject (its wallet and X account refreshed),
 * else the wallet-only user of the same wallet (the subject is attached: the same person proved control
 * of the same wallet), else a new user.
 */
export async function upsertPrivyUser(em: Em, id: PrivyIdentity): Promise<UserRecord> {
  const repo = repos(em).identity;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let row: UserRow | undefined;
    try {
      row = await repo.updatePrivyUser(id);
    } catch (err) {
      if (isUniqueViolation(err, 'users_wallet_address_lower_key')) throw walletInUse();
      throw err;
    }
    if (row) return toRecord(row);

    row = await repo.insertPrivyUser(randomUUID(), id);
    if (row) return toRecord(row);

    // The insert met an existing subject (a concurrent first exchange: the next round updates it) or an
    // existing wallet. A wallet-only user of this wallet becomes this Privy user.
    try {
      row = await repo.attachPrivySubject(id);
    } catch (err) {
      if (isUniqueViolation(err, 'users_privy_sub_key')) continue; // the subject was created meanwhile
      throw err;
    }
    if (row) return toRecord(row);

    const holder = await repo.findUserByWallet(id.address);
    if (holder && holder.privy_sub !== null && holder.privy_sub !== id.sub) throw walletInUse();
  }
  throw new Error(`could not settle the user of ${id.sub} after ${MAX_ATTEMPTS} attempts`);
}

/** The user of a wallet (any Privy-linked user included), created on the wallet's first sign-in. */
export async function findOrCreateWalletUser(em: Em, address: string): Promise<UserRecord> {
  const repo = repos(em).identity;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const found = await repo.findUserByWallet(address);
    if (found) return toRecord(found);
    const created = await repo.insertWalletUser(randomUUID(), address);
    if (created) return toRecord(created);
  }
  throw new Error(`could not settle the user of wallet ${address} after ${MAX_ATTEMPTS} attempts`);
}

export async function getUser(em: Em, userId: string): Promise<UserRecord> {
  const row = await repos(em).identity.findUser(userId);
  if (!row) throw new NotFound('USER_NOT_FOUND', 'the user of this session no longer exists');
  return toRecord(row);
}

/** Sets the public handle; the database's case-insensitive unique index decides races (409 HANDLE_TAKEN). */
export async function setHandle(em: Em, userId: string, handle: string): Promise<UserRecord> {
  let row: UserRow | undefined;
  try {
    row = await repos(em).identity.setHandle(userId, handle);
  } catch (err) {
    if (isUniqueViolation(err, 'users_handle_lower_key')) {
      throw new Conflict('HANDLE_TAKEN', `the handle "${handle}" is already taken (handles are compared without regard to letter case)`);
    }
    throw err;
  }
  if (!row) throw new NotFound('USER_NOT_FOUND', 'the user of this session no longer exists');
  return toRecord(row);
}
