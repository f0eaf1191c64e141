// The user's statement (GET /v1/users/ledger; docs/trading.md, "The user's statement"): every ledger transaction
// that moved the user's balances, newest first, each with its change per balance and the balances right after it.
//
// A walk is a snapshot. The first page reads, in one statement, the user's balances and each account's highest
// entry id; the cursor carries those ids (`upTo`) and every later page reads only entries up to them, so
// postings that commit during the walk never slip into it (the ids follow each account's commit order:
// src/db/repositories/statement.repository.ts). The cursor also carries the balances right after the next
// movement: each movement's `after` is the previous one's minus the previous one's change, so the changes of
// a whole walk add up to the first movement's `after`, the balances at the first page's instant. Nothing is
// stored per entry: a page costs a few index probes per row, on page 1 as on page 1,000.
//
// A Movement is also what a `balance` event of the user channel will carry (issue 36, item 2): its kind,
// reference, change and balances after, built at posting time from the same postings (movements.ts).
import type { Em } from '../../db/orm.js';
import { NO_KEY, type MovementPart, type ScannedEntry, type StatementRepository } from '../../db/repositories/statement.repository.js';
import { cursorKey, invalidCursor, openCursor, sealCursor } from '../keyset-cursor.js';
import { isLedgerKind, ledgerReference, type LedgerKind, type LedgerReference } from './kinds.js';
import { repos } from '../../db/repos.js';

/** The user's three balances and the ledger account behind each. */
export const BALANCE_ACCOUNTS = { available: 'user_available', reserved: 'user_reserved', appToken: 'user_app_token' } as const;
export type BalanceName = keyof typeof BALANCE_ACCOUNTS;
export type Balances = Record<BalanceName, bigint>;
const NAMES = Object.keys(BALANCE_ACCOUNTS) as BalanceName[];
const ZERO: Balances = { available: 0n, reserved: 0n, appToken: 0n };

export const balanceOfAccountKind = (kind: string): BalanceName | undefined => NAMES.find((n) => BALANCE_ACCOUNTS[n] === kind);

export interface Movement {
  /** The ledger transaction. */
  id: string;
  kind: LedgerKind;
  reference: LedgerReference;
  /** When the posting's database transaction began. */
  atMs: number;
  change: Balances;
  after: Balances;
}

/** Where a walk stands. */
export interface StatementPosition {
  /** The key of the last movement shown (NO_KEY before the first page): the next page lies below it. */
  before: bigint;
  /** Per balance, the account's highest entry id at the first page: the walk's snapshot. */
  upTo: Balances;
  /** The balances right after the next movement to show. */
  balances: Balances;
}

export interface PageChoice {
  /** The page's transactions, newest first, with their keys (their highest entry id on the user's accounts). */
  page: Array<{ transactionId: string; key: bigint }>;
  more: boolean;
}

/**
 * Which transactions make the page, from a scan of up to `perAccount` entries of each account (merged, newest
 * first), or null when the scan was too shallow to tell (scan deeper). A transaction's key is its first entry
 * in the merged scan, but only above `floor`: below the lowest entry read of an account whose scan was cut,
 * a transaction's higher entries may be unread. Transactions shown on an earlier page (`straddles`) are skipped.
 */
export function choosePage(scanned: readonly ScannedEntry[], perAccount: number, limit: number): PageChoice | null {
  const count = new Map<string, number>();
  const lowest = new Map<string, bigint>();
  for (const e of scanned) {
    count.set(e.accountId, (count.get(e.accountId) ?? 0) + 1);
    lowest.set(e.accountId, e.id);
  }
  let floor = 0n;
  for (const [account, n] of count) if (n >= perAccount && lowest.get(account)! > floor) floor = lowest.get(account)!;
  const seen = new Set<string>();
  const page: PageChoice['page'] = [];
  for (const e of scanned) {
    if (e.straddles || seen.has(e.transactionId)) continue;
    seen.add(e.transactionId);
    if (e.id < floor) break;
    if (page.length === limit) return { page, more: true };
    page.push({ transactionId: e.transactionId, key: e.id });
  }
  return floor === 0n ? { page, more: false } : null;
}

/**
 * The page's movements, walking down from `start` (the balances right after the first of them): each one's
 * `after`, then the balances right after the next one (its `after` minus its change).
 */
export function walk(
  start: Balances,
  page: PageChoice['page'],
  parts: readonly MovementPart[],
  balanceOfAccount: (accountId: string) => BalanceName | undefined,
): { movements: Movement[]; next: Balances } {
  const byTx = new Map<string, MovementPart[]>();
  for (const p of parts) byTx.set(p.transactionId, [...(byTx.get(p.transactionId) ?? []), p]);
  let current = { ...start };
  const movements = page.map(({ transactionId }) => {
    const own = byTx.get(transactionId) ?? [];
    const first = own[0];
    if (!first) throw new Error(`ledger transaction ${transactionId} has no row`);
    if (!isLedgerKind(first.kind))
      throw new Error(`ledger transaction ${transactionId} has a kind no statement knows: ${first.kind} (src/domain/ledger/kinds.ts)`);
    const change = { ...ZERO };
    for (const p of own) {
      const name = balanceOfAccount(p.accountId);
      if (name) change[name] += p.amount;
    }
    const m: Movement = {
      id: transactionId,
      kind: first.kind,
      reference: ledgerReference(first.kind, first.reference),
      atMs: first.atMs,
      change,
      after: current,
    };
    current = {
      available: current.available - change.available,
      reserved: current.reserved - change.reserved,
      appToken: current.appToken - change.appToken,
    };
    return m;
  });
  return { movements, next: current };
}

interface Wire {
  k: 'ledger';
  u: string;
  b: string;
  h: string[];
  s: string[];
}

const INT = /^-?(0|[1-9][0-9]{0,18})$/;
const trio = (b: Balances) => NAMES.map((n) => b[n].toString());
const fromTrio = (t: readonly string[]): Balances => ({ available: BigInt(t[0]!), reserved: BigInt(t[1]!), appToken: BigInt(t[2]!) });

export function encodePosition(key: Buffer, userId: string, p: StatementPosition): string {
  return sealCursor(key, { k: 'ledger', u: userId, b: p.before.toString(), h: trio(p.upTo), s: trio(p.balances) } satisfies Wire);
}

export function decodePosition(key: Buffer, userId: string, raw: string): StatementPosition {
  const o = openCursor(key, raw) as Partial<Wire> | null;
  const trioOk = (t: unknown) => Array.isArray(t) && t.length === 3 && t.every((x) => typeof x === 'string' && INT.test(x));
  if (!o || o.k !== 'ledger' || typeof o.b !== 'string' || !INT.test(o.b) || !trioOk(o.h) || !trioOk(o.s)) {
    throw invalidCursor('it was not produced by this service for the statement');
  }
  if (o.u !== userId) throw invalidCursor("it belongs to another user's statement");
  return { before: BigInt(o.b), upTo: fromTrio(o.h!), balances: fromTrio(o.s!) };
}

/** One page of the user's statement; `cursor` from the previous page's nextCursor. */
export async function ledgerStatement(
  em: Em,
  userId: string,
  q: { limit: number; cursor?: string | undefined },
): Promise<{ movements: Movement[]; nextCursor: string | null }> {
  const key = await cursorKey(em);
  const given = q.cursor === undefined ? null : decodePosition(key, userId, q.cursor);
  const { movements, next } = await em.transactional(async (tx) => {
    const repo = repos(tx).statement;
    await repo.preferOrderedScans();
    return statementPage(repo, userId, q.limit, given);
  });
  return { movements, nextCursor: next && encodePosition(key, userId, next) };
}

/** The page's movements, and the position after them when more follow. From the first page when `given` is null. */
async function statementPage(
  repo: StatementRepository,
  userId: string,
  limit: number,
  given: StatementPosition | null,
): Promise<{ movements: Movement[]; next: StatementPosition | null }> {
  const accounts = (await repo.accounts(userId)).filter((a) => balanceOfAccountKind(a.kind));
  const nameOf = new Map(accounts.map((a) => [a.id, balanceOfAccountKind(a.kind)!]));
  const at: StatementPosition = given ?? { before: NO_KEY, upTo: { ...ZERO }, balances: { ...ZERO } };
  if (!given) {
    for (const a of accounts) {
      at.upTo[nameOf.get(a.id)!] = a.highest;
      at.balances[nameOf.get(a.id)!] = a.balance;
    }
  }
  const bounded = accounts.map((a) => ({ id: a.id, upTo: at.upTo[nameOf.get(a.id)!] }));
  let chosen: PageChoice | null = null;
  for (let perAccount = 2 * (limit + 1); !chosen; perAccount *= 4) {
    chosen = choosePage(bounded.length ? await repo.scan(bounded, at.before, perAccount) : [], perAccount, limit);
  }
  const parts = await repo.movements(chosen.page, [...nameOf.keys()]);
  const { movements, next } = walk(at.balances, chosen.page, parts, (id) => nameOf.get(id));
  const last = chosen.page.at(-1);
  return { movements, next: chosen.more && last ? { before: last.key, upTo: at.upTo, balances: next } : null };
}
