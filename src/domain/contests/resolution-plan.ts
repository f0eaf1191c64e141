// The contest's resolution and voiding decisions (docs/getting-started.md, Contests), pure: given what
// src/domain/contests/resolution.ts read under the contest's row lock, what to write. Money moves in one
// posting per decision: a void refunds every entry's bet from reserved to available; a resolution moves the
// reserved bets and the protocol prize pool into the contest's pot, pays the winners' available balances out
// of it and leaves the remainder to the treasury. Nothing is paid unless the contest is still open, so a second
// run (retry, duplicate job, relay) pays nothing twice. The contest lifecycle (src/trading/contest-lifecycle.ts)
// publishes `contests.changed` once the write has committed.
import { Conflict } from '../errors.js';
import type { Posting } from '../ledger/ledger.js';
import type { ContestRecord, MarketStatus } from './records.js';
import { rankEntries, splitPot, totalPot } from './scoring.js';

/** An entry as the settlement reads it. */
export interface SettlingEntry {
  id: string;
  user_id: string;
  score: number;
  created_at_ms: number;
}

type Contest = Pick<ContestRecord, 'id' | 'status' | 'betAmount' | 'prizePool' | 'winningSplitBps'>;

export const alreadySettled = (c: Pick<ContestRecord, 'id' | 'status'>) =>
  new Conflict('CONTEST_ALREADY_SETTLED', `This contest is already ${c.status}.`, { contest_id: c.id, status: c.status });

/** Bets per user: sum of bet_amount over the user's entries. */
function betsByUser(entries: readonly SettlingEntry[], bet: bigint): Map<string, bigint> {
  const m = new Map<string, bigint>();
  for (const e of entries) m.set(e.user_id, (m.get(e.user_id) ?? 0n) + bet);
  return m;
}

/** Every entry's bet back from reserved to available, one posting for the contest; null without entries. */
export function refundPosting(c: Contest, entries: readonly SettlingEntry[]): Posting | null {
  const byUser = betsByUser(entries, c.betAmount);
  if (!byUser.size) return null;
  const p: Posting = { kind: 'contest_refund', reference: c.id, entries: [] };
  for (const [userId, amount] of byUser) {
    p.entries.push(
      { account: { userId, kind: 'user_reserved' }, amount: -amount },
      { account: { userId, kind: 'user_available' }, amount },
    );
  }
  return p;
}

/** The operator voids a contest: 409 CONTEST_ALREADY_SETTLED unless it is open; else the refund to post. */
export function planVoid(c: Contest, entries: readonly SettlingEntry[]): { refund: Posting | null } {
  if (c.status !== 'open') throw alreadySettled(c);
  return { refund: refundPosting(c, entries) };
}

export interface Payouts {
  /** The ranked entries' ids, payouts and ranks (the repository's setPayouts columns). */
  ids: string[];
  amounts: bigint[];
  ranks: number[];
}

export type ResolutionPlan =
  | { kind: 'already_settled' }
  | { kind: 'not_ready' }
  | { kind: 'voided'; refund: Posting | null }
  | { kind: 'resolved'; payout: Posting | null; payouts: Payouts | null };

/** The pot into the contest's account, out to the winners (per user), and the remainder to the treasury. */
function payoutPosting(c: Contest, entries: readonly SettlingEntry[], won: ReadonlyMap<string, bigint>, remainder: bigint): Posting {
  const p: Posting = { kind: 'contest_payout', reference: c.id, entries: [] };
  const bets = c.betAmount * BigInt(entries.length);
  for (const [userId, amount] of betsByUser(entries, c.betAmount))
    p.entries.push({ account: { userId, kind: 'user_reserved' }, amount: -amount });
  p.entries.push({ account: { pot: c.id }, amount: bets });
  if (c.prizePool > 0n)
    p.entries.push({ account: { system: 'treasury' }, amount: -c.prizePool }, { account: { pot: c.id }, amount: c.prizePool });
  const paid = [...won.values()].reduce((a, b) => a + b, 0n);
  for (const [userId, amount] of won) p.entries.push({ account: { userId, kind: 'user_available' }, amount });
  if (paid > 0n) p.entries.push({ account: { pot: c.id }, amount: -paid });
  if (remainder > 0n)
    p.entries.push({ account: { pot: c.id }, amount: -remainder }, { account: { system: 'treasury' }, amount: remainder });
  return p;
}

/**
 * The resolution of a contest: nothing unless it is open and no market is OPEN; voided (every bet refunded)
 * when every market was voided; otherwise ranked, the pot split, and paid.
 */
export function planResolution(
  c: Contest,
  markets: ReadonlyArray<{ status: MarketStatus }>,
  entries: readonly SettlingEntry[],
): ResolutionPlan {
  if (c.status !== 'open') return { kind: 'already_settled' };
  if (markets.some((m) => m.status === 'OPEN')) return { kind: 'not_ready' };
  if (markets.every((m) => m.status === 'VOIDED')) return { kind: 'voided', refund: refundPosting(c, entries) };
  if (!entries.length) return { kind: 'resolved', payout: null, payouts: null };
  const ranked = rankEntries(entries.map((e) => ({ id: e.id, userId: e.user_id, score: e.score, createdAtMs: e.created_at_ms })));
  const pot = totalPot(c.prizePool, entries.length, c.betAmount);
  const { payouts, remainder } = splitPot(pot, c.winningSplitBps, ranked);
  const won = new Map<string, bigint>();
  for (const e of ranked) {
    const amount = payouts.get(e.id) ?? 0n;
    if (amount > 0n) won.set(e.userId, (won.get(e.userId) ?? 0n) + amount);
  }
  return {
    kind: 'resolved',
    payout: payoutPosting(c, entries, won, remainder),
    payouts: { ids: ranked.map((e) => e.id), amounts: ranked.map((e) => payouts.get(e.id) ?? 0n), ranks: ranked.map((e) => e.rank) },
  };
}
