// The demo settlement adapter's two reads (src/domain/settlement/demo.ts): it has no chain, so a user's
// demo onchain balance is the limit minus their successful deposits.
import { sql } from 'kysely';
import type { Db } from '../schema.js';

export class SettlementRepository {
  constructor(private readonly db: Db) {}

  /** Locks the user's row (serialises that user's deposit settlements). */
  async lockUser(userId: string): Promise<void> {
    await this.db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
  }

  /** The user's successful deposits, summed, as int8 text ('0' when none). */
  async successfulDepositTotal(userId: string): Promise<string> {
    const row = await this.db
      .selectFrom('operations')
      .select(sql<string>`coalesce(sum(amount), 0)::text`.as('total'))
      .where('user_id', '=', userId)
      .where('kind', '=', 'deposit')
      .where('status', '=', 'success')
      .executeTakeFirst();
    return row?.total ?? '0';
  }
}

export const settlementRepository = (db: Db) => new SettlementRepository(db);
