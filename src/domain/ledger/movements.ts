// A user's movements built at posting time, from the postings and the balances `postAll` answers: the same
// Movement the statement reads back later (statement.ts), for what must be recorded in the posting's own
// transaction (the user channel's `balance` events, issue 36 item 2). No read: the postings and the balances
// after them are all it takes.
import { isUser, type Posting } from './ledger.js';
import { ledgerReference } from './kinds.js';
import { balanceOfAccountKind, type Balances, type Movement } from './statement.js';

/**
 * The movements of `userId` in `postings` (posted in this order, each with its `id`), newest first as the
 * statement lists them, given the user's balances after all of them. A posting that does not touch the user is
 * left out.
 */
export function movementsOf(userId: string, postings: readonly Posting[], after: Balances, atMs: number): Movement[] {
  const out: Movement[] = [];
  let current = { ...after };
  for (const p of [...postings].reverse()) {
    const change: Balances = { available: 0n, reserved: 0n, appToken: 0n };
    let touched = false;
    for (const e of p.entries) {
      if (!isUser(e.account) || e.account.userId !== userId) continue;
      touched = true;
      change[balanceOfAccountKind(e.account.kind)!] += e.amount;
    }
    if (!touched) continue;
    if (!p.id) throw new Error(`posting ${p.kind} ${p.reference} needs its id to be a movement`);
    out.push({ id: p.id, kind: p.kind, reference: ledgerReference(p.kind, p.reference), atMs, change, after: current });
    current = {
      available: current.available - change.available,
      reserved: current.reserved - change.reserved,
      appToken: current.appToken - change.appToken,
    };
  }
  return out;
}

/** The user's balances in `postAll`'s answer (by `${userId}:${kind}`); an account it did not touch is taken from `before`. */
export function balancesIn(userId: string, after: ReadonlyMap<string, bigint>, before: Balances): Balances {
  const get = (kind: string, fallback: bigint) => after.get(`${userId}:${kind}`) ?? fallback;
  return {
    available: get('user_available', before.available),
    reserved: get('user_reserved', before.reserved),
    appToken: get('user_app_token', before.appToken),
  };
}
