// The demo settlement adapter's two reads (src/domain/settlement/demo.ts): it has no chain, so a user's
// demo onchain balance is the limit minus their successful deposits.
import { sql } from 'kysely';
import { int8ToBigint } from '../int8.js';
import type { Db } from '../schema.js';
import { anyOf } from '../sql.js';

export class SettlementRepository {
  constructor(private readonly db: Db) {}

  /**
   * Locks these users' rows in id order (serialises each user's deposit settlements) and returns each
   * one's successful deposits, summed, in bigint micros, in one statement.
   */
  async lockUsersWithDepositTotals(userIds: readonly string[]): Promise<Array<{ user_id: string; total: bigint }>> {
    const { rows } = await sql<{ user_id: string; total: string }>`
      with locked as (select id from users where id = ${anyOf(userIds, 'uuid')} order by id for update)
      select l.id as user_id,
             (select coalesce(sum(o.amount), 0) from operations o
               where o.user_id = l.id and o.kind = 'deposit' and o.status = 'success')::text as total
        from locked l`.execute(this.db);
    return rows.map((r) => ({ user_id: r.user_id, total: int8ToBigint(r.total) }));
  }
}
