// Users, user sessions and Sign-In with Ethereum nonces (src/domain/identity/*), and the identity tables'
// housekeeping. Wallets match in any letter case (lower() on both sides, as the unique index
// users_wallet_address_lower_key does). Expiries leave the database as epoch seconds (numeric as text).
import { sql, type ExpressionBuilder } from 'kysely';
import { int8ToNumber } from '../int8.js';
import { anyOf } from '../sql.js';
import type { DB, Db } from '../schema.js';

const USER_COLUMNS = ['id', 'privy_sub', 'wallet_address', 'handle', 'x_handle', 'x_avatar_url'] as const;
const expiresEpoch = sql<string>`extract(epoch from expires_at)`.as('expires_epoch');
const sameWallet = (wallet: string) => (eb: ExpressionBuilder<DB, 'users'>) =>
  eb(eb.fn('lower', [eb.ref('wallet_address')]), '=', eb.fn('lower', [eb.val(wallet)]));

export interface PrivyUserFields {
  sub: string;
  address: string;
  xHandle: string | null;
  xAvatarUrl: string | null;
}

export class IdentityRepository {
  constructor(private readonly db: Db) {}

  // ---- users

  /** Refreshes the wallet and X account of the user with this Privy subject. */
  updatePrivyUser(id: PrivyUserFields) {
    return this.db
      .updateTable('users')
      .set({ wallet_address: id.address, x_handle: id.xHandle, x_avatar_url: id.xAvatarUrl, updated_at: sql`now()` })
      .where('privy_sub', '=', id.sub)
      .returning(USER_COLUMNS)
      .executeTakeFirst();
  }

  /** A new Privy user; undefined when the subject or the wallet exists already. */
  insertPrivyUser(userId: string, id: PrivyUserFields) {
    return this.db
      .insertInto('users')
      .values({ id: userId, privy_sub: id.sub, wallet_address: id.address, x_handle: id.xHandle, x_avatar_url: id.xAvatarUrl })
      .onConflict((oc) => oc.doNothing())
      .returning(USER_COLUMNS)
      .executeTakeFirst();
  }

  /** Attaches the Privy subject to the wallet-only user of the same wallet. */
  attachPrivySubject(id: PrivyUserFields) {
    return this.db
      .updateTable('users')
      .set({ privy_sub: id.sub, wallet_address: id.address, x_handle: id.xHandle, x_avatar_url: id.xAvatarUrl, updated_at: sql`now()` })
      .where(sameWallet(id.address))
      .where('privy_sub', 'is', null)
      .returning(USER_COLUMNS)
      .executeTakeFirst();
  }

  findUserByWallet(address: string) {
    return this.db.selectFrom('users').select(USER_COLUMNS).where(sameWallet(address)).executeTakeFirst();
  }

  /** A new wallet-only user; undefined when the wallet exists already. */
  insertWalletUser(userId: string, address: string) {
    return this.db
      .insertInto('users')
      .values({ id: userId, wallet_address: address })
      .onConflict((oc) => oc.doNothing())
      .returning(USER_COLUMNS)
      .executeTakeFirst();
  }

  findUser(userId: string) {
    return this.db.selectFrom('users').select(USER_COLUMNS).where('id', '=', userId).executeTakeFirst();
  }

  setHandle(userId: string, handle: string) {
    return this.db
      .updateTable('users')
      .set({ handle, updated_at: sql`now()` })
      .where('id', '=', userId)
      .returning(USER_COLUMNS)
      .executeTakeFirst();
  }

  // ---- sessions

  insertUserSession(s: { id: string; tokenHash: Buffer; userId: string; ttlSeconds: number }) {
    return this.db
      .insertInto('sessions')
      .values({
        id: s.id,
        token_hash: s.tokenHash,
        kind: 'user',
        user_id: s.userId,
        expires_at: sql<string>`now() + make_interval(secs => ${s.ttlSeconds}::double precision)`,
      })
      .returning(expiresEpoch)
      .executeTakeFirstOrThrow();
  }

  /** The live (unrevoked, unexpired) session of a token hash, with its user's wallet and its expiry (epoch ms). */
  async liveSession(tokenHash: Buffer) {
    const row = await this.db
      .selectFrom('sessions as s')
      .leftJoin('users as u', 'u.id', 's.user_id')
      .select(['s.id', 's.kind', 's.user_id', 's.market_maker_address', 'u.wallet_address'])
      .select(sql<string>`(extract(epoch from s.expires_at) * 1000)::bigint`.as('expires_ms'))
      .where('s.token_hash', '=', tokenHash)
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', sql<string>`now()`)
      .executeTakeFirst();
    return row && { ...row, expires_ms: int8ToNumber(row.expires_ms) };
  }

  /** Which of these sessions are still kept and not revoked (a revoked or pruned session is absent). */
  unrevokedSessions(sessionIds: readonly string[]) {
    return this.db
      .selectFrom('sessions')
      .select('id')
      .where('id', '=', anyOf(sessionIds, 'uuid'))
      .where('revoked_at', 'is', null)
      .execute();
  }

  async revokeSession(sessionId: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  // ---- wallet nonces

  insertNonce(nonce: string, ttlSeconds: number) {
    return this.db
      .insertInto('wallet_nonces')
      .values({ nonce, expires_at: sql<string>`now() + make_interval(secs => ${ttlSeconds}::double precision)` })
      .returning(expiresEpoch)
      .executeTakeFirstOrThrow();
  }

  /** Deletes nonces expired over an hour ago (keeps the table small without a job). */
  async purgeExpiredNonces(): Promise<void> {
    await this.db
      .deleteFrom('wallet_nonces')
      .where('expires_at', '<', sql<string>`now() - interval '1 hour'`)
      .execute();
  }

  /** Marks the nonce used when it is unexpired and unused; undefined otherwise. */
  consumeNonce(nonce: string) {
    return this.db
      .updateTable('wallet_nonces')
      .set({ used_at: sql`now()` })
      .where('nonce', '=', nonce)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<string>`now()`)
      .returning('nonce')
      .executeTakeFirst();
  }

  // ---- housekeeping: each call deletes one bounded batch and says how many rows went

  async pruneSessionsBatch(graceMs: number, batch: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`with doomed as (
        select id from sessions where expires_at < now() - (${graceMs}::double precision * interval '1 millisecond')
        union
        select id from sessions where revoked_at < now() - (${graceMs}::double precision * interval '1 millisecond')
        limit ${batch}
      ), gone as (delete from sessions s using doomed d where s.id = d.id returning 1)
      select count(*)::int as n from gone`.execute(this.db);
    return rows[0]?.n ?? 0;
  }

  async pruneNoncesBatch(batch: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`with doomed as (
        select nonce from wallet_nonces where used_at is not null
        union
        select nonce from wallet_nonces where expires_at < now()
        limit ${batch}
      ), gone as (delete from wallet_nonces w using doomed d where w.nonce = d.nonce returning 1)
      select count(*)::int as n from gone`.execute(this.db);
    return rows[0]?.n ?? 0;
  }

  async pruneLimitsBatch(batch: number): Promise<number> {
    const { rows } = await sql<{
      n: number;
    }>`with doomed as (select key from rate_limit_counters where reset_at < now() - interval '1 hour' limit ${batch}),
      gone as (delete from rate_limit_counters r using doomed d where r.key = d.key returning 1),
      slots as (delete from ws_connection_slots where expires_at < now() - interval '1 hour' returning 1)
      select ((select count(*) from gone) + (select count(*) from slots))::int as n`.execute(this.db);
    return rows[0]?.n ?? 0;
  }
}
