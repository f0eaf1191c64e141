// Users: created by the first Privy exchange or wallet sign-in, found again by Privy subject or wallet.
// Uniqueness (subject, wallet, handle in any letter case) lives in unique indexes; these functions use
// INSERT ... ON CONFLICT and re-reads instead of check-then-insert, so concurrent first sign-ins of one
// person converge on one row.
import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Em } from '../../db/orm.js';
import { Conflict, NotFound } from '../errors.js';
import type { PrivyIdentity } from './privy-token.js';

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

const COLUMNS = 'id, privy_sub, wallet_address, handle, x_handle, x_avatar_url';
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

const isUniqueViolation = (err: unknown, constraint: string) =>
  err instanceof UniqueConstraintViolationException && (err as { constraint?: string }).constraint === constraint;

/**
 * The user of a verified Privy identity: the one with this subject (its wallet and X account refreshed),
 * else the wallet-only user of the same wallet (the subject is attached: the same person proved control
 * of the same wallet), else a new user.
 */
export async function upsertPrivyUser(em: Em, id: PrivyIdentity): Promise<UserRecord> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let rows: UserRow[];
    try {
      rows = await em.execute<UserRow[]>(
        `update users set wallet_address = ?, x_handle = ?, x_avatar_url = ?, updated_at = now()
          where privy_sub = ? returning ${COLUMNS}`,
        [id.address, id.xHandle, id.xAvatarUrl, id.sub],
      );
    } catch (err) {
      if (isUniqueViolation(err, 'users_wallet_address_lower_key')) throw walletInUse();
      throw err;
    }
    if (rows[0]) return toRecord(rows[0]);

    rows = await em.execute<UserRow[]>(
      `insert into users (id, privy_sub, wallet_address, x_handle, x_avatar_url) values (?, ?, ?, ?, ?)
       on conflict do nothing returning ${COLUMNS}`,
      [randomUUID(), id.sub, id.address, id.xHandle, id.xAvatarUrl],
    );
    if (rows[0]) return toRecord(rows[0]);

    // The insert met an existing subject (a concurrent first exchange: the next round updates it) or an
    // existing wallet. A wallet-only user of this wallet becomes this Privy user.
    try {
      rows = await em.execute<UserRow[]>(
        `update users set privy_sub = ?, wallet_address = ?, x_handle = ?, x_avatar_url = ?, updated_at = now()
          where lower(wallet_address) = lower(?) and privy_sub is null returning ${COLUMNS}`,
        [id.sub, id.address, id.xHandle, id.xAvatarUrl, id.address],
      );
    } catch (err) {
      if (isUniqueViolation(err, 'users_privy_sub_key')) continue; // the subject was created meanwhile
      throw err;
    }
    if (rows[0]) return toRecord(rows[0]);

    const holder = await em.execute<UserRow[]>(`select ${COLUMNS} from users where lower(wallet_address) = lower(?)`, [id.address]);
    if (holder[0] && holder[0].privy_sub !== null && holder[0].privy_sub !== id.sub) throw walletInUse();
  }
  throw new Error(`could not settle the user of ${id.sub} after ${MAX_ATTEMPTS} attempts`);
}

/** The user of a wallet (any Privy-linked user included), created on the wallet's first sign-in. */
export async function findOrCreateWalletUser(em: Em, address: string): Promise<UserRecord> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const found = await em.execute<UserRow[]>(`select ${COLUMNS} from users where lower(wallet_address) = lower(?)`, [address]);
    if (found[0]) return toRecord(found[0]);
    const created = await em.execute<UserRow[]>(`insert into users (id, wallet_address) values (?, ?) on conflict do nothing returning ${COLUMNS}`, [
      randomUUID(),
      address,
    ]);
    if (created[0]) return toRecord(created[0]);
  }
  throw new Error(`could not settle the user of wallet ${address} after ${MAX_ATTEMPTS} attempts`);
}

export async function getUser(em: Em, userId: string): Promise<UserRecord> {
  const rows = await em.execute<UserRow[]>(`select ${COLUMNS} from users where id = ?`, [userId]);
  if (!rows[0]) throw new NotFound('USER_NOT_FOUND', 'the user of this session no longer exists');
  return toRecord(rows[0]);
}

/** Sets the public handle; the database's case-insensitive unique index decides races (409 HANDLE_TAKEN). */
export async function setHandle(em: Em, userId: string, handle: string): Promise<UserRecord> {
  let rows: UserRow[];
  try {
    rows = await em.execute<UserRow[]>(`update users set handle = ?, updated_at = now() where id = ? returning ${COLUMNS}`, [handle, userId]);
  } catch (err) {
    if (isUniqueViolation(err, 'users_handle_lower_key')) {
      throw new Conflict('HANDLE_TAKEN', `the handle "${handle}" is already taken (handles are compared without regard to letter case)`);
    }
    throw err;
  }
  if (!rows[0]) throw new NotFound('USER_NOT_FOUND', 'the user of this session no longer exists');
  return toRecord(rows[0]);
}
