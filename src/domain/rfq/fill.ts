// Executing a close (close-plan.ts decides it): in the caller's transaction, with the RFQ and its quotes locked
// (lockOpen). The common path costs ONE statement: the plan is made on the balances read without a lock with
// the quotes, and the write statement locks the accounts it posts to (id order) and writes everything,
// the makers' protection counters included; the balance CHECK of ledger_accounts is the guard. When it fails
// (a chosen maker's collateral moved since the read), CollateralMoved: the caller runs the close again the
// safe way (`safe`), locking the taker and every candidate maker first and planning on the locked balances.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { isCheckViolation } from '../database-errors.js';
import { InsufficientBalance, lockUserBalances, planPostings, type LockedAccounts, type Posting } from '../ledger/ledger.js';
import type { Allocation } from './allocate.js';
import { planClose, type CloseHow, type ClosePlan } from './close-plan.js';
import type { RfqDeps } from './deps.js';
import type { RfqEvent } from './events.js';
import { mmpTripped } from './mmp.js';
import type { QuoteRecord, RfqRecord, RfqWithQuotes } from './records.js';
import { repos } from '../../db/repos.js';

export interface Closed {
  rfq: RfqWithQuotes;
  events: RfqEvent[];
  allocation: Allocation | null;
}

/** The RFQ locked with its quotes (lockOpen in close.ts), and the ledger accounts read without a lock. */
export interface LockedRfq {
  rfq: RfqRecord;
  /** Every quote, best first. */
  all: QuoteRecord[];
  /** The live quotes whose maker is still registered: the candidates. */
  live: QuoteRecord[];
  /** The taker's and the quoting makers' accounts by `${userId}:${kind}`, read without a lock. */
  accounts: LockedAccounts;
}

/** A chosen maker's collateral moved between the unlocked read and the write: run the close again, the safe way. */
export class CollateralMoved extends Error {
  constructor() {
    super('a chosen maker no longer covers its liability under lock');
    this.name = 'CollateralMoved';
  }
}

const KINDS = ['user_available', 'user_reserved'] as const;
const availableOf = (accounts: LockedAccounts, userId: string) => accounts.get(`${userId}:user_available`)?.balance ?? 0n;

/** What executeClose closes, how, and whether it locks first. */
export interface CloseRun {
  locked: LockedRfq;
  how: CloseHow;
  nowMs: number;
  /**
   * 'first': the taker and every candidate maker are locked first and the plan runs on the locked balances (a
   * manual accept, a cancel, the rerun after CollateralMoved). 'in_write': the plan runs on the unlocked
   * balances and the write statement takes the locks (a due close).
   */
  lock: 'first' | 'in_write';
}

/** Closes the locked RFQ as `run.how` says: the plan (planClose), then its one write statement. */
export async function executeClose(tx: Em, deps: RfqDeps, run: CloseRun): Promise<Closed> {
  const { locked, how, nowMs } = run;
  const safe = run.lock === 'first';
  const { rfq: r } = locked;
  const makers = how.kind === 'fill' ? [...new Set(how.candidates.map((q) => q.makerUserId).filter((u): u is string => u !== null))] : [];
  let accounts = safe ? await lockUserBalances(tx, [r.takerUserId, ...makers], KINDS) : locked.accounts;
  const plan = planClose({
    rfq: r,
    all: locked.all,
    how,
    balances: new Map(makers.map((u) => [u, availableOf(accounts, u)])),
    nowMs,
    limits: { maxPayoutMicros: deps.settings.maxPayoutMicros, minFillMicros: deps.settings.minFillMicros },
    newId: randomUUID,
  });
  // A chosen maker's first fill: its reserved account does not exist yet. Created and locked here (rare).
  if (!safe && !refsOf(plan.postings).every((k) => accounts.has(k))) {
    accounts = await lockUserBalances(tx, [r.takerUserId, ...plan.liabilities.keys()], KINDS);
    for (const [u, l] of plan.liabilities) if (availableOf(accounts, u) < l) throw new CollateralMoved();
  }
  return write(tx, plan, accounts, safe);
}

/** The plan's one write statement, then what a protection trip withdraws (rare: statements of their own). */
async function write(tx: Em, plan: ClosePlan, accounts: LockedAccounts, safe: boolean): Promise<Closed> {
  let ledger;
  try {
    ledger = planPostings(plan.postings, accounts).rows;
  } catch (err) {
    if (!safe && err instanceof InsufficientBalance) throw new CollateralMoved();
    throw err;
  }
  let tripped;
  try {
    // Decided in SQL, in this one statement (FillsRepository.closeWrites, src/db/repositories/fills.repository.ts):
    // the balance CHECK of ledger_accounts refuses a maker whose collateral moved since the unlocked read (then the
    // close runs again the safe way, below); market-maker protection (countFillsCte,
    // src/db/repositories/mm-protections.repository.ts) restarts a window past its interval and trips a maker whose
    // fills or liability in it reach its limits (the rows it returns: mmpTripped withdraws their quotes).
    tripped = await repos(tx).fills.closeWrites({
      rfqId: plan.after.rfq.id,
      close: plan.close,
      outcomes: plan.outcomes.map((o) => ({
        id: o.quoteId,
        status: o.status,
        reason: o.status === 'filled' ? null : o.reason,
        filledStake: o.status === 'filled' ? o.fill.fillMicros : 0n,
      })),
      position: plan.position,
      ledger,
      lockAccounts: refsOf(plan.postings).map((k) => accounts.get(k)!.id),
      makerFills: plan.makerFills,
    });
  } catch (err) {
    if (!safe && isCheckViolation(err, 'ledger_accounts_user_balance_check')) throw new CollateralMoved();
    throw err;
  }
  // Market-maker protection: a trip withdraws the maker's live quotes.
  const events = [...plan.events, ...(await mmpTripped(tx, tripped))];
  return { rfq: plan.after, events, allocation: plan.allocation };
}

/** The accounts the postings touch, by `${userId}:${kind}` (every RFQ posting is between user accounts). */
function refsOf(postings: readonly Posting[]): string[] {
  const keys = new Set<string>();
  for (const p of postings) for (const e of p.entries) if ('userId' in e.account) keys.add(`${e.account.userId}:${e.account.kind}`);
  return [...keys];
}
