// Market makers and their WebSocket sessions. Wallets match in any letter case (lower() on both sides,
// as the unique index market_makers_wallet_address_lower_key does).
import { sql, type ExpressionBuilder } from 'kysely';
import { int8ToNumber } from '../int8.js';
import type { DB, Db } from '../schema.js';
import { anyOf } from '../sql.js';

const epochMs = (column: 'created_at' | 'expires_at') => sql<string>`(extract(epoch from ${sql.ref(column)}) * 1000)::bigint`;
const sameWallet =
  (column: 'wallet_address' | 'market_maker_address', wallet: string) => (eb: ExpressionBuilder<DB, 'market_makers' | 'sessions'>) =>
    eb(eb.fn('lower', [sql.ref(column)]), '=', eb.fn('lower', [eb.val(wallet)]));

export class MarketMakersRepository {
  constructor(private readonly db: Db) {}

  /** Registers the wallet, or registers it again if it was removed; undefined when it is registered. */
  async register(walletAddress: string, name: string) {
    const row = await this.db
      .insertInto('market_makers')
      .values({ wallet_address: walletAddress, name })
      .onConflict((oc) =>
        oc
          .expression(sql`lower(wallet_address)`)
          .doUpdateSet((eb) => ({
            wallet_address: eb.ref('excluded.wallet_address'),
            name: eb.ref('excluded.name'),
            created_at: sql`now()`,
            removed_at: null,
          }))
          .where('market_makers.removed_at', 'is not', null),
      )
      .returning(['wallet_address', 'name', epochMs('created_at').as('created_ms')])
      .executeTakeFirst();
    return row && { ...row, created_ms: int8ToNumber(row.created_ms) };
  }

  remove(walletAddress: string) {
    return this.db
      .updateTable('market_makers')
      .set({ removed_at: sql`now()` })
      .where(sameWallet('wallet_address', walletAddress))
      .where('removed_at', 'is', null)
      .returning('wallet_address')
      .executeTakeFirst();
  }

  revokeSessions(walletAddress: string) {
    return this.db
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('kind', '=', 'market_maker')
      .where(sameWallet('market_maker_address', walletAddress))
      .where('revoked_at', 'is', null)
      .returning('id')
      .execute();
  }

  /**
   * Cancels every live quote of the maker (quote rows store the wallet lowercase); returns them. Run after
   * `remove` in its transaction: the maker's row is locked, so a quote being recorded meanwhile (it reads
   * that row FOR SHARE) either committed first and is cancelled here, or sees the removal and is refused.
   */
  withdrawLiveQuotes(walletAddress: string) {
    return this.db
      .updateTable('rfq_quotes')
      .set({ status: 'cancelled', reason: null })
      .where('maker_address', '=', walletAddress.toLowerCase())
      .where('status', '=', sql.lit('live'))
      .returning(['id', 'rfq_id', 'client_quote_id', 'odds_bps'])
      .execute();
  }

  /**
   * A session for the market maker with this wallet if it is registered and not removed, in ONE statement:
   * its row is read FOR SHARE (a removal committing meanwhile is waited for and then seen: no row, no
   * session). Nothing inserted (undefined) when there is no such maker.
   */
  async insertSessionIfActive(s: { id: string; tokenHash: Buffer; walletAddress: string; ttlMs: number }) {
    const row = await this.db
      .insertInto('sessions')
      .columns(['id', 'token_hash', 'kind', 'market_maker_address', 'expires_at'])
      .expression((eb) =>
        eb
          .selectFrom('market_makers')
          .select([
            sql<string>`${s.id}::uuid`.as('id'),
            sql<Buffer>`${s.tokenHash}::bytea`.as('token_hash'),
            sql<string>`'market_maker'`.as('kind'),
            'wallet_address',
            sql<string>`now() + make_interval(secs => ${s.ttlMs}::double precision / 1000)`.as('expires_at'),
          ])
          .where(sameWallet('wallet_address', s.walletAddress))
          .where('removed_at', 'is', null)
          .forShare(),
      )
      .returning(['market_maker_address', epochMs('expires_at').as('expires_ms')])
      .executeTakeFirst();
    return row && { ...row, expires_ms: int8ToNumber(row.expires_ms) };
  }

  /** Of these sessions, those revoked or whose maker was removed. */
  endedSessions(sessionIds: readonly string[]) {
    return this.db
      .selectFrom('sessions as s')
      .leftJoin('market_makers as m', (j) => j.on(sql`lower(m.wallet_address)`, '=', sql`lower(s.market_maker_address)`))
      .select('s.id')
      .where('s.id', '=', anyOf(sessionIds, 'uuid'))
      .where((eb) => eb.or([eb('s.revoked_at', 'is not', null), eb('m.wallet_address', 'is', null), eb('m.removed_at', 'is not', null)]))
      .execute();
  }
}
