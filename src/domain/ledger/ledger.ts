// Double-entry ledger. Every movement is one ledger transaction whose entries sum to zero, posted inside
// the caller's database transaction: the touched accounts are locked in id order (no deadlocks between
// two postings), the entries are inserted, and a trigger keeps each account's cached balance equal to the
// sum of its entries. The database refuses a user balance below zero (CHECK), an unbalanced transaction
// (deferred constraint trigger) and any UPDATE/DELETE of entries, so a bug here cannot break the books.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import {
  type LedgerRepository,
  type PostingRows,
  type SystemAccountKind,
  type UserAccountKind,
} from '../../db/repositories/ledger.repository.js';
import { type LedgerCheckRepository } from '../../db/repositories/ledger-check.repository.js';
import { Unprocessable } from '../errors.js';
import { OWNER_PREFIX } from '../trading-counters.js';
import type { LedgerKind } from './kinds.js';
import { repos } from '../../db/repos.js';

export type { SystemAccountKind, UserAccountKind };

/** `pot`: a contest's pot (one per contest, created on first use; it holds money only inside the resolution posting). */
export type AccountRef = { userId: string; kind: UserAccountKind } | { system: SystemAccountKind } | { pot: string };

export interface Posting {
  /** What moved money (kinds.ts: every kind, and what its reference names; the statement shows them). */
  kind: LedgerKind;
  /** The business reference (operation id, RFQ id, position id, `window:<market id>`, contest id...): kinds.ts. */
  reference: string;
  entries: Array<{ account: AccountRef; amount: bigint }>;
  /** The ledger transaction's id (default: a new UUID). */
  id?: string;
  /** Unique per kind (index ledger_transactions_idempotency_key): a second posting with it cannot commit. */
  idempotencyKey?: string;
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
export const isUser = (a: AccountRef): a is { userId: string; kind: UserAccountKind } => 'userId' in a;

/** Accounts locked in this transaction, by refKey (`${userId}:${kind}`, `system:<kind>`, `pot:<contest>`). */
export type LockedAccounts = Map<string, { id: string; balance: bigint }>;

const keyOfRow = (r: { user_id: string | null; kind: string; contest_id: string | null }) =>
  r.user_id ? `${r.user_id}:${r.kind}` : r.kind === 'contest_pot' ? `pot:${r.contest_id}` : `system:${r.kind}`;

/**
 * Locks the accounts of `refs` in id order and returns them with their balances: ONE statement when they
 * all exist; user and pot accounts missing are created first (then locked again), a missing system
 * account is an error (migrations not applied).
 */
async function lockRefs(repo: LedgerRepository, refs: readonly AccountRef[], createMissing = true): Promise<LockedAccounts> {
  const users = refs.filter(isUser);
  const q = {
    userIds: users.map((u) => u.userId),
    userKinds: users.map((u) => u.kind),
    systems: refs.filter((a): a is { system: SystemAccountKind } => 'system' in a).map((a) => a.system),
    pots: refs.filter((a): a is { pot: string } => 'pot' in a).map((a) => a.pot),
  };
  const lock = async () => new Map((await repo.lockOwned(q)).map((r) => [keyOfRow(r), { id: r.id, balance: r.balance }]));
  let locked = await lock();
  const missing = refs.filter((a) => !locked.has(refKey(a)));
  if (missing.length && createMissing) {
    const missingUsers = missing.filter(isUser);
    const missingPots = missing.filter((a): a is { pot: string } => 'pot' in a).map((a) => a.pot);
    const missingSystem = missing.find((a) => 'system' in a);
    if (missingSystem) throw new Error(`system ledger account ${refKey(missingSystem)} is missing (migrations not applied?)`);
    if (missingUsers.length) {
      await repo.createUserAccounts(
        missingUsers.map((u) => u.userId),
        missingUsers.map((u) => u.kind),
      );
    }
    if (missingPots.length) await repo.createPotAccounts(missingPots);
    locked = await lock();
    for (const a of refs) if (!locked.has(refKey(a))) throw new Error(`ledger account ${refKey(a)} could not be resolved`);
  }
  return locked;
}

/**
 * Posts one ledger transaction. Must run inside a database transaction (`em.transactional`): the account
 * locks are held until it commits. Throws InsufficientBalance (nothing written) when a user account would
 * go below zero. Returns the new balances of the touched accounts. Set-based: a posting of 2 entries and
 * one of 200,000 (a large contest's payout) both take two statements (lock, insert).
 */
export async function post(em: Em, p: Posting): Promise<Map<string, bigint>> {
  return postAll(em, [p]);
}

/**
 * Posts several ledger transactions in order, as post() would one after another, in two statements: the
 * touched accounts locked in id order (skipped when `locked` already holds every one of them: locks taken
 * earlier in the same transaction by lockUserBalances), then every transaction and entry inserted. Each
 * posting is checked against the balances left by the ones before it; InsufficientBalance writes nothing.
 * Returns the balances after all of them.
 */
export async function postAll(em: Em, postings: readonly Posting[], locked?: LockedAccounts): Promise<Map<string, bigint>> {
  const refs = refsOf(postings);
  const repo = repos(em).ledger;
  const accounts = locked && [...refs.keys()].every((k) => locked.has(k)) ? locked : await lockRefs(repo, [...refs.values()]);
  const { rows, after } = planPostings(postings, accounts);
  // Decided in SQL as these rows go in (src/db/migrations/Migration20261120040000_ledger.ts): ledger_apply_entry
  // (trigger; its last version in Migration20261128040000_history.ts) keeps each account's balance the sum of its
  // entries, and the CHECK ledger_accounts_user_balance_check refuses a user balance below zero; ledger_check_balanced
  // (deferred constraint trigger; Migration20261125020000_ledger_check_once.ts) refuses a transaction whose entries
  // do not sum to zero; ledger_append_only refuses an UPDATE, DELETE or TRUNCATE of ledger_entries and ledger_transactions.
  await repo.insertPostings(rows);
  if (locked) for (const [k, balance] of after) if (locked.has(k)) locked.set(k, { id: locked.get(k)!.id, balance });
  return after;
}

function refsOf(postings: readonly Posting[]): Map<string, AccountRef> {
  const refs = new Map<string, AccountRef>();
  for (const p of postings) {
    validatePosting(p);
    for (const e of p.entries) refs.set(refKey(e.account), e.account);
  }
  return refs;
}

/**
 * What postAll writes, without writing it: the rows of `postings` against accounts the caller has locked
 * (every account they touch must be in `accounts`), checked as postAll checks them (InsufficientBalance),
 * with the balances after. For a caller that writes them in a statement of its own (postingCtes).
 */
export function planPostings(postings: readonly Posting[], accounts: LockedAccounts): { rows: PostingRows; after: Map<string, bigint> } {
  const refs = refsOf(postings);
  for (const k of refs.keys()) if (!accounts.has(k)) throw new Error(`ledger account ${k} is not locked`);
  const after = new Map<string, bigint>();
  for (const k of refs.keys()) after.set(k, accounts.get(k)!.balance);
  const txs: Array<{ id: string; kind: string; reference: string; idempotencyKey: string | null }> = [];
  const entries = { transactionIds: [] as string[], accountIds: [] as string[], amounts: [] as bigint[] };
  for (const p of postings) {
    const txId = p.id ?? randomUUID();
    const net = new Map<string, bigint>();
    for (const e of p.entries) {
      const k = refKey(e.account);
      net.set(k, (net.get(k) ?? 0n) + e.amount);
      entries.transactionIds.push(txId);
      entries.accountIds.push(accounts.get(k)!.id);
      entries.amounts.push(e.amount);
    }
    for (const [k, amount] of net) {
      const next = after.get(k)! + amount;
      if (isUser(refs.get(k)!) && next < 0n) throw new InsufficientBalance();
      after.set(k, next);
    }
    txs.push({ id: txId, kind: p.kind, reference: p.reference, idempotencyKey: p.idempotencyKey ?? null });
  }
  return { rows: { txs, entries }, after };
}

export interface UserBalances {
  available: bigint;
  reserved: bigint;
  appToken: bigint;
}

export async function userBalances(em: Em, userId: string): Promise<UserBalances> {
  const rows = await repos(em).ledger.userBalances(userId);
  const get = (k: UserAccountKind) => rows.find((r) => r.kind === k)?.balance ?? 0n;
  return { available: get('user_available'), reserved: get('user_reserved'), appToken: get('user_app_token') };
}

export interface LedgerProblem {
  kind:
    'unbalanced_transaction' | 'balance_mismatch' | 'negative_user_balance' | 'empty_transaction' | 'reserved_mismatch' | 'stats_mismatch';
  id: string;
  detail: string;
}

/**
 * Verifies the whole ledger: every transaction has entries summing to zero, every cached balance equals
 * the sum of its entries, no user balance is negative. Returns the problems (empty: the books are right).
 */
export async function checkLedger(em: Em): Promise<LedgerProblem[]> {
  return checkLedgerWith(repos(em).ledgerCheck);
}

/** The same check through any connection (tests and `npm run ledger:check` use their own: singleConnectionDb). */
export async function checkLedgerWith(repo: LedgerCheckRepository): Promise<LedgerProblem[]> {
  const problems: LedgerProblem[] = [];
  for (const u of await repo.unbalancedTransactions()) {
    problems.push(
      u.entries < 2
        ? { kind: 'empty_transaction', id: u.id, detail: `${u.entries} entries` }
        : { kind: 'unbalanced_transaction', id: u.id, detail: `sum ${u.total}` },
    );
  }
  for (const m of await repo.balanceMismatches())
    problems.push({ kind: 'balance_mismatch', id: m.id, detail: `balance ${m.balance}, entries sum ${m.total}` });
  for (const n of await repo.negativeUserBalances())
    problems.push({ kind: 'negative_user_balance', id: n.id, detail: `balance ${n.balance}` });
  for (const r of await repo.reservedMismatches()) {
    problems.push({
      kind: 'reserved_mismatch',
      id: r.user_id,
      detail: `user_reserved ${r.balance}, open stakes + liabilities + open contest bets + pending withdrawals (with fees) ${r.expected}`,
    });
  }
  for (const r of await repo.statsMismatches(OWNER_PREFIX)) {
    problems.push({
      kind: 'stats_mismatch',
      id: r.owner,
      detail: `trading_stats ${r.kept}; sums over positions ${r.summed} (open, open stake, potential, settled, wins, losses, voided, pnl)`,
    });
  }
  return problems;
}

/**
 * Locks the users' accounts of `kinds` (creating missing ones) in id order, in one statement, and returns
 * them with their balances by `${userId}:${kind}` (`createMissing: false`: a missing one is left out). For a rule that must check several balances before it
 * decides what to post (an RFQ fill checks every chosen maker's collateral): postAll(em, postings, locked)
 * then posts to them without locking again.
 */
export async function lockUserBalances(
  em: Em,
  userIds: readonly string[],
  kinds: readonly UserAccountKind[],
  opts: { createMissing?: boolean } = {},
): Promise<LockedAccounts> {
  if (!userIds.length || !kinds.length) return new Map();
  const refs = userIds.flatMap((userId) => kinds.map((kind): AccountRef => ({ userId, kind })));
  return lockRefs(repos(em).ledger, refs, opts.createMissing ?? true);
}
