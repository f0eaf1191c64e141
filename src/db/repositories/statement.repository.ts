// The user's statement (GET /v1/users/ledger; src/domain/ledger/statement.ts): the ledger transactions that
// moved a user's balances, newest first. It rests on two properties of the ledger's entry ids, which the
// balance trigger guarantees by drawing an entry's id after its account's row lock (migration ..._history):
//   1. per account, ids follow commit order: an entry committed after a reader's snapshot has a higher id than
//      every entry of that account the reader saw. So "the account's entries up to id h" (h: the highest id
//      seen at the first page) is the same set whenever it is read: the statement's snapshot.
//   2. one ledger transaction's entries on one account are consecutive among that account's entries, and
//      lie right below the transaction's key (its highest entry id on the user's accounts): nothing else
//      of that account lies between (the posting holds the account's lock from its first entry to its commit).
// A movement's key orders the statement: sorting by it respects every account's commit order. Every read is
// bounded by the snapshot's per-account ids, so reads in different snapshots agree.
//
// The scan must walk the (account_id, id) index backwards and stop after its limit. The planner estimates an
// account's entries from the column's average (the account id is a parameter), so for an account of a market
// maker, with millions of entries, it would rather read them all through a bitmap and sort them: the caller
// runs the page in a transaction with bitmap scans turned off (preferOrderedScans), which leaves the ordered
// index scan as the plan, for light and heavy accounts alike (measured in docs/performance.md).
import { sql } from 'kysely';
import { int8, int8ToBigint, int8ToNumber } from '../int8.js';
import type { Db } from '../schema.js';

/** Above every entry id: the first page's upper bound. */
export const NO_KEY = 2n ** 63n - 1n;

export interface StatementAccount {
  id: string;
  kind: string;
  balance: bigint;
  /** The account's highest entry id (0 when it has none). */
  highest: bigint;
}

export interface ScannedEntry {
  id: bigint;
  transactionId: string;
  accountId: string;
  /** Its transaction has an entry on these accounts at or above `before`: it was shown on an earlier page. */
  straddles: boolean;
}

export interface MovementPart {
  transactionId: string;
  kind: string;
  reference: string;
  atMs: number;
  accountId: string;
  /** The sum of the transaction's entries on this account (0 when it has none). */
  amount: bigint;
}

export class StatementRepository {
  constructor(private readonly db: Db) {}

  /** In the caller's transaction: no bitmap scans until it ends (see above). */
  async preferOrderedScans(): Promise<void> {
    await sql`set local enable_bitmapscan = off`.execute(this.db);
  }

  /** The user's accounts with their balances and highest entry ids, in ONE statement (one snapshot: they agree). */
  async accounts(userId: string): Promise<StatementAccount[]> {
    const { rows } = await sql<{ id: string; kind: string; balance: string; highest: string }>`
      select a.id::text as id, a.kind, a.balance::text as balance,
             coalesce((select max(e.id) from ledger_entries e where e.account_id = a.id), 0)::text as highest
        from ledger_accounts a where a.user_id = ${userId} order by a.id`.execute(this.db);
    return rows.map((r) => ({ id: r.id, kind: r.kind, balance: int8ToBigint(r.balance), highest: int8ToBigint(r.highest) }));
  }

  /**
   * Up to `perAccount` entries of each account below `before` and at most the account's `upTo`, newest first,
   * merged by id; `straddles` marks the entries of a transaction that has an entry on these accounts at or
   * above `before` (shown on an earlier page: its lower entries straddle the cursor).
   */
  async scan(accounts: ReadonlyArray<{ id: string; upTo: bigint }>, before: bigint, perAccount: number): Promise<ScannedEntry[]> {
    const ids = accounts.map((a) => a.id);
    const { rows } = await sql<{ id: string; transaction_id: string; account_id: string; straddles: boolean }>`
      with acc(id, up_to) as (select * from unnest(${ids}::int8[], ${accounts.map((a) => int8(a.upTo))}::int8[])),
      scan as (
        select e.id, e.transaction_id, e.account_id from acc cross join lateral (
          select x.id, x.transaction_id, x.account_id from ledger_entries x
           where x.account_id = acc.id and x.id <= acc.up_to and x.id < ${int8(before)}::int8
           order by x.id desc limit ${perAccount}) e),
      straddling as (
        select t.transaction_id from (select distinct transaction_id from scan) t
         where exists (select 1 from ledger_entries y
                        where y.transaction_id = t.transaction_id and y.id >= ${int8(before)}::int8 and y.account_id = any(${ids}::int8[])))
      select s.id::text as id, s.transaction_id, s.account_id::text as account_id,
             s.transaction_id in (select transaction_id from straddling) as straddles
        from scan s order by s.id desc`.execute(this.db);
    return rows.map((r) => ({ id: int8ToBigint(r.id), transactionId: r.transaction_id, accountId: r.account_id, straddles: r.straddles }));
  }

  /**
   * For each (transaction, key) of a page and each of the accounts: the sum of the transaction's entries on
   * the account (its run right below the key, property 2), with the transaction's kind, reference and time.
   */
  async movements(page: ReadonlyArray<{ transactionId: string; key: bigint }>, accountIds: readonly string[]): Promise<MovementPart[]> {
    if (!page.length) return [];
    const { rows } = await sql<{
      transaction_id: string;
      kind: string;
      reference: string;
      at_ms: string;
      account_id: string;
      amount: string;
    }>`
      with p(tx, key) as (select * from unnest(${page.map((m) => m.transactionId)}::uuid[], ${page.map((m) => int8(m.key))}::int8[])),
      acc(id) as (select unnest(${accountIds}::int8[]))
      select p.tx as transaction_id, t.kind, t.reference, floor(extract(epoch from t.created_at) * 1000)::int8::text as at_ms,
             acc.id::text as account_id,
             (select coalesce(sum(e.amount), 0) from ledger_entries e
               where e.account_id = acc.id and e.id <= p.key and e.transaction_id = p.tx
                 and e.id > coalesce((select max(o.id) from ledger_entries o
                                       where o.account_id = acc.id and o.id <= p.key and o.transaction_id <> p.tx), 0))::text as amount
        from p join ledger_transactions t on t.id = p.tx cross join acc`.execute(this.db);
    return rows.map((r) => ({
      transactionId: r.transaction_id,
      kind: r.kind,
      reference: r.reference,
      atMs: int8ToNumber(r.at_ms),
      accountId: r.account_id,
      amount: int8ToBigint(r.amount),
    }));
  }
}

export const statementRepository = (db: Db) => new StatementRepository(db);
