// The ledger's SQL. Set-based statements (one statement whatever the number of entries) are written with
// Kysely's `sql` tag and one narrow result type each; the rest with the query builder, typed by the schema.
import { sql, type RawBuilder } from 'kysely';
import { int8, int8ToBigint } from '../int8.js';
import type { Db } from '../schema.js';

/** Ledger transactions and their entries as rows to insert (amounts in bigint micros, bound as int8 text). */
export interface PostingRows {
  txs: ReadonlyArray<{ id: string; kind: string; reference: string; idempotencyKey: string | null }>;
  entries: { transactionIds: readonly string[]; accountIds: readonly string[]; amounts: readonly bigint[] };
}

/**
 * The two data-modifying CTEs (`ledger_tx`, `ledger_en`) that write `p`, for a statement that writes
 * something else with them (an RFQ and its reserve, a fill and its liabilities), written only when `when`
 * holds. Entries go in the given order, so the per-entry balance trigger sees them as sequential postings.
 */
export function postingCtes(p: PostingRows, when: RawBuilder<unknown> = sql`true`): RawBuilder<unknown>[] {
  const { txs, entries } = p;
  return [
    sql`ledger_tx as (insert into ledger_transactions (id, kind, reference, idempotency_key)
        select * from unnest(${txs.map((t) => t.id)}::uuid[], ${txs.map((t) => t.kind)}::text[], ${txs.map((t) => t.reference)}::text[],
          ${txs.map((t) => t.idempotencyKey)}::text[]) where ${when})`,
    sql`ledger_en as (insert into ledger_entries (transaction_id, account_id, amount)
        select tx, a, m from unnest(${entries.transactionIds}::uuid[], ${entries.accountIds}::bigint[], ${entries.amounts.map(int8)}::bigint[])
          with ordinality as e(tx, a, m, n) where ${when} order by n)`,
  ];
}

export type SystemAccountKind = 'settlement_clearing' | 'treasury';
export type UserAccountKind = 'user_available' | 'user_reserved' | 'user_app_token';

export class LedgerRepository {
  constructor(private readonly db: Db) {}

  /** Creates the contest pot accounts that do not exist yet (lockOwned then finds them). */
  async createPotAccounts(contestIds: readonly string[]): Promise<void> {
    await sql`insert into ledger_accounts (kind, contest_id) select 'contest_pot', c from unnest(${contestIds}::uuid[]) as c on conflict do nothing`.execute(
      this.db,
    );
  }

  /** Creates the (user, kind) accounts that do not exist yet (lockOwned then finds them). */
  async createUserAccounts(userIds: readonly string[], kinds: readonly UserAccountKind[]): Promise<void> {
    await sql`insert into ledger_accounts (user_id, kind) select u, k from unnest(${userIds}::uuid[], ${kinds}::text[]) as t(u, k) on conflict do nothing`.execute(
      this.db,
    );
  }

  /**
   * The existing accounts of these owners, locked in id order (two postings never deadlock), in ONE
   * statement: users' (user, kind) pairs, system accounts by kind, contest pots. A missing account is
   * simply absent (the caller creates it and locks again).
   */
  async lockOwned(q: {
    userIds: readonly string[];
    userKinds: readonly UserAccountKind[];
    systems: readonly SystemAccountKind[];
    pots: readonly string[];
  }) {
    const { rows } = await sql<{ id: string; balance: string; user_id: string | null; kind: string; contest_id: string | null }>`
      select a.id, a.balance, a.user_id, a.kind, a.contest_id from ledger_accounts a
       where a.id in (
         select x.id from ledger_accounts x join unnest(${q.userIds}::uuid[], ${q.userKinds}::text[]) as t(u, k) on x.user_id = t.u and x.kind = t.k
         union all
         select x.id from ledger_accounts x where x.user_id is null and x.kind <> 'contest_pot' and x.kind = any(${q.systems}::text[])
         union all
         select x.id from ledger_accounts x where x.kind = 'contest_pot' and x.contest_id = any(${q.pots}::uuid[]))
       order by a.id for update`.execute(this.db);
    return rows.map((r) => ({ ...r, balance: int8ToBigint(r.balance) }));
  }

  /**
   * Several ledger transactions and their entries in ONE statement (entries in the given order, so the
   * per-entry balance trigger sees them as sequential postings would).
   */
  async insertPostings(p: PostingRows): Promise<void> {
    await sql`with ${sql.join(postingCtes(p))} select 1`.execute(this.db);
  }

  /** The user's accounts and their balances in bigint micros. */
  async userBalances(userId: string) {
    const rows = await this.db.selectFrom('ledger_accounts').select(['kind', 'balance']).where('user_id', '=', userId).execute();
    return rows.map((r) => ({ kind: r.kind, balance: int8ToBigint(r.balance) }));
  }
}
