// The ledger's SQL. Set-based statements (one statement whatever the number of entries) are written with
// Kysely's `sql` tag and one narrow result type each; the rest with the query builder, typed by the schema.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { anyOf } from '../sql.js';

export type SystemAccountKind = 'settlement_clearing' | 'treasury';
export type UserAccountKind = 'user_available' | 'user_reserved' | 'user_app_token';

export class LedgerRepository {
  constructor(private readonly db: Db) {}

  systemAccounts(kinds: readonly SystemAccountKind[]) {
    return this.db
      .selectFrom('ledger_accounts')
      .select(['id', 'kind'])
      .where('user_id', 'is', null)
      .where('kind', '=', anyOf(kinds, 'text'))
      .execute();
  }

  /** Creates the pot accounts that do not exist yet, then returns every requested one. */
  async potAccounts(contestIds: readonly string[]) {
    await sql`insert into ledger_accounts (kind, contest_id) select 'contest_pot', c from unnest(${contestIds}::uuid[]) as c on conflict do nothing`.execute(
      this.db,
    );
    return this.db
      .selectFrom('ledger_accounts')
      .select(['id', 'contest_id'])
      .where('kind', '=', sql.lit('contest_pot')) // the predicate of ledger_accounts_pot_key
      .where('contest_id', '=', anyOf(contestIds, 'uuid'))
      .$narrowType<{ contest_id: string }>()
      .execute();
  }

  /** Creates the user accounts that do not exist yet, then returns every requested (user, kind) pair. */
  async userAccounts(userIds: readonly string[], kinds: readonly UserAccountKind[]) {
    await sql`insert into ledger_accounts (user_id, kind) select u, k from unnest(${userIds}::uuid[], ${kinds}::text[]) as t(u, k) on conflict do nothing`.execute(
      this.db,
    );
    const { rows } = await sql<{ id: string; user_id: string; kind: UserAccountKind }>`
      select a.id, a.user_id, a.kind from ledger_accounts a
        join unnest(${userIds}::uuid[], ${kinds}::text[]) as t(u, k) on a.user_id = t.u and a.kind = t.k`.execute(this.db);
    return rows;
  }

  /** Locks the accounts in id order (two postings never deadlock) and returns their balances. */
  lockAccounts(ids: readonly string[]) {
    return this.db.selectFrom('ledger_accounts').select(['id', 'balance']).where('id', '=', anyOf(ids, 'bigint')).orderBy('id').forUpdate().execute();
  }

  /** `idempotencyKey`: the write's key, unique per kind, so a second posting of one request cannot commit. */
  async insertTransaction(t: { id: string; kind: string; reference: string; idempotencyKey: string | null }): Promise<void> {
    await this.db
      .insertInto('ledger_transactions')
      .values({ id: t.id, kind: t.kind, reference: t.reference, idempotency_key: t.idempotencyKey })
      .execute();
  }

  /** The entries in the posting's order (ids ascending as given). Amounts are int8 decimal strings. */
  async insertEntries(transactionId: string, accountIds: readonly string[], amounts: readonly string[]): Promise<void> {
    await sql`insert into ledger_entries (transaction_id, account_id, amount)
      select ${transactionId}::uuid, a, m from unnest(${accountIds}::bigint[], ${amounts}::bigint[]) with ordinality as t(a, m, n) order by n`.execute(
      this.db,
    );
  }

  userBalances(userId: string) {
    return this.db.selectFrom('ledger_accounts').select(['kind', 'balance']).where('user_id', '=', userId).execute();
  }

  /** Runs one of checkLedger's read-only statements. */
  async check<T>(text: string): Promise<T> {
    return (await sql.raw<T extends Array<infer R> ? R : never>(text).execute(this.db)).rows as T;
  }
}

export const ledgerRepository = (db: Db) => new LedgerRepository(db);
