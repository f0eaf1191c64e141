// Double-entry ledger. Every movement is one ledger transaction whose entries sum to zero, posted inside
// the caller's database transaction: the touched accounts are locked in id order (no deadlocks between
// two postings), the entries are inserted, and a trigger keeps each account's cached balance equal to the
// sum of its entries. The database refuses a user balance below zero (CHECK), an unbalanced transaction
// (deferred constraint trigger) and any UPDATE/DELETE of entries, so a bug here cannot break the books.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { Unprocessable } from '../errors.js';
import { microsFromDb } from './amounts.js';

export type UserAccountKind = 'user_available' | 'user_reserved' | 'user_app_token';
export type SystemAccountKind = 'settlement_clearing' | 'treasury';

/** `pot`: a contest's pot (one per contest, created on first use; it holds money only inside the resolution posting). */
export type AccountRef = { userId: string; kind: UserAccountKind } | { system: SystemAccountKind } | { pot: string };

export interface Posting {
  /** What moved money, e.g. deposit, withdraw_reserve, withdraw_settle, withdraw_refund, app_token_credit. */
  kind: string;
  /** The business reference (operation id, idempotency key, contest id...). */
  reference: string;
  entries: Array<{ account: AccountRef; amount: bigint }>;
}

export class InsufficientBalance extends Unprocessable {
  constructor(message = 'the available balance is lower than the amount') {
    super('INSUFFICIENT_BALANCE', message);
  }
}

/** Pure rule: a posting is valid when it has entries, none zero, and they sum to zero. */
export function validatePosting(p: Posting): void {
  if (p.entries.length < 2) throw new Error(`ledger posting ${p.kind} needs at least two entries`);
  let sum = 0n;
  for (const e of p.entries) {
    if (e.amount === 0n) throw new Error(`ledger posting ${p.kind} has a zero entry`);
    sum += e.amount;
  }
  if (sum !== 0n) throw new Error(`ledger posting ${p.kind} does not sum to zero (sum ${sum})`);
}

const refKey = (a: AccountRef) => ('system' in a ? `system:${a.system}` : 'pot' in a ? `pot:${a.pot}` : `${a.userId}:${a.kind}`);
const isUser = (a: AccountRef): a is { userId: string; kind: UserAccountKind } => 'userId' in a;

async function accountId(em: Em, a: AccountRef): Promise<string> {
  if ('system' in a) {
    const rows = await em.execute<Array<{ id: string }>>('select id::text as id from ledger_accounts where user_id is null and kind = ?', [a.system]);
    if (!rows[0]) throw new Error(`system ledger account ${a.system} is missing (migrations not applied?)`);
    return rows[0].id;
  }
  if ('pot' in a) {
    await em.execute(`insert into ledger_accounts (kind, contest_id) values ('contest_pot', ?) on conflict do nothing`, [a.pot], 'run');
    const rows = await em.execute<Array<{ id: string }>>(`select id::text as id from ledger_accounts where kind = 'contest_pot' and contest_id = ?`, [a.pot]);
    return rows[0]!.id;
  }
  const found = await em.execute<Array<{ id: string }>>('select id::text as id from ledger_accounts where user_id = ? and kind = ?', [a.userId, a.kind]);
  if (found[0]) return found[0].id;
  await em.execute('insert into ledger_accounts (user_id, kind) values (?, ?) on conflict do nothing', [a.userId, a.kind], 'run');
  const rows = await em.execute<Array<{ id: string }>>('select id::text as id from ledger_accounts where user_id = ? and kind = ?', [a.userId, a.kind]);
  return rows[0]!.id;
}

/**
 * Posts one ledger transaction. Must run inside a database transaction (`em.transactional`): the account
 * locks are held until it commits. Throws InsufficientBalance (nothing written) when a user account would
 * go below zero. Returns the new balances of the touched accounts.
 */
export async function post(em: Em, p: Posting): Promise<Map<string, bigint>> {
  validatePosting(p);
  const byKey = new Map<string, { id: string; ref: AccountRef; amount: bigint }>();
  for (const e of p.entries) {
    const k = refKey(e.account);
    const cur = byKey.get(k) ?? { id: await accountId(em, e.account), ref: e.account, amount: 0n };
    cur.amount += e.amount;
    byKey.set(k, cur);
  }
  const touched = [...byKey.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const after = new Map<string, bigint>();
  for (const t of touched) {
    const rows = await em.execute<Array<{ balance: string }>>('select balance::text as balance from ledger_accounts where id = ? for update', [t.id]);
    const next = microsFromDb(rows[0]!.balance) + t.amount;
    if (isUser(t.ref) && next < 0n) throw new InsufficientBalance();
    after.set(refKey(t.ref), next);
  }
  const txId = randomUUID();
  await em.execute('insert into ledger_transactions (id, kind, reference) values (?, ?, ?)', [txId, p.kind, p.reference], 'run');
  for (const e of p.entries) {
    await em.execute('insert into ledger_entries (transaction_id, account_id, amount) values (?, ?, ?)', [txId, byKey.get(refKey(e.account))!.id, e.amount.toString()], 'run');
  }
  return after;
}

export interface UserBalances {
  available: bigint;
  reserved: bigint;
  appToken: bigint;
}

export async function userBalances(em: Em, userId: string): Promise<UserBalances> {
  const rows = await em.execute<Array<{ kind: UserAccountKind; balance: string }>>(
    'select kind, balance::text as balance from ledger_accounts where user_id = ?',
    [userId],
  );
  const get = (k: UserAccountKind) => microsFromDb(rows.find((r) => r.kind === k)?.balance ?? '0');
  return { available: get('user_available'), reserved: get('user_reserved'), appToken: get('user_app_token') };
}

export interface LedgerProblem {
  kind: 'unbalanced_transaction' | 'balance_mismatch' | 'negative_user_balance' | 'empty_transaction';
  id: string;
  detail: string;
}

/**
 * Verifies the whole ledger: every transaction has entries summing to zero, every cached balance equals
 * the sum of its entries, no user balance is negative. Returns the problems (empty: the books are right).
 */
export async function checkLedger(em: Em): Promise<LedgerProblem[]> {
  return checkLedgerWith(<T>(sql: string) => em.execute(sql) as Promise<T>);
}

/** The same check through any SQL runner (tests and `npm run ledger:check` use a plain pg client). */
export async function checkLedgerWith(query: <T>(sql: string) => Promise<T>): Promise<LedgerProblem[]> {
  const problems: LedgerProblem[] = [];
  const unbalanced = await query<Array<{ id: string; total: string | null; n: string }>>(
    `select t.id, sum(e.amount)::text as total, count(e.id)::text as n
       from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id
      group by t.id having count(e.id) < 2 or sum(e.amount) <> 0`,
  );
  for (const u of unbalanced) {
    problems.push(Number(u.n) < 2 ? { kind: 'empty_transaction', id: u.id, detail: `${u.n} entries` } : { kind: 'unbalanced_transaction', id: u.id, detail: `sum ${u.total}` });
  }
  const mismatched = await query<Array<{ id: string; balance: string; total: string }>>(
    `select a.id::text as id, a.balance::text as balance, coalesce(sum(e.amount), 0)::text as total
       from ledger_accounts a left join ledger_entries e on e.account_id = a.id
      group by a.id having a.balance <> coalesce(sum(e.amount), 0)`,
  );
  for (const m of mismatched) problems.push({ kind: 'balance_mismatch', id: m.id, detail: `balance ${m.balance}, entries sum ${m.total}` });
  const negative = await query<Array<{ id: string; balance: string }>>(
    'select id::text as id, balance::text as balance from ledger_accounts where user_id is not null and balance < 0',
  );
  for (const n of negative) problems.push({ kind: 'negative_user_balance', id: n.id, detail: `balance ${n.balance}` });
  return problems;
}
