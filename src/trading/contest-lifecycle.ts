// The contest lifecycle's orchestration (docs/trading.md, "Where the code is"): one function per step (enter,
// create, resolve a market, void, resolve), each the shape of the RFQ's (src/trading/rfq-lifecycle.ts): the rule
// in src/domain/contests reads under the contest's row lock, a pure plan decides (src/domain/contests/
// entry-plan.ts, resolution-plan.ts), the repositories write, all in one transaction; this module does what
// follows the commit: it publishes `contests.changed` (src/bus/contest-events.ts: every API process drops the
// contest's cached pages) and hands a contest whose last market was resolved to the `contests` queue. It is the
// only publisher of `contests.changed`: the HTTP handlers, the demo seed, sign-in and the contests worker call
// these functions and never touch the bus.
//
// Steps that run inside a transaction their caller owns (typed Tx: src/db/unit-of-work.ts; an idempotency key's,
// src/http/idempotent.ts, or an operator's audited write, src/http/audit-scope.ts): `enter`, `create`,
// `resolveMarket`, `void`; the matching after-commit step (`entered`, `created`, `marketResolved`, `voided`) runs
// once it has committed.
import type { Logger } from 'pino';
import type { Bus } from '../bus/bus.js';
import { publishContestsChanged } from '../bus/contest-events.js';
import type { Em } from '../db/orm.js';
import type { Tx } from '../db/unit-of-work.js';
import type { ResolutionOutcome } from '../db/vocabulary.js';
import { createContest, type NewContest } from '../domain/contests/create.js';
import { enterContest, type EntryRecord, type PickInput } from '../domain/contests/entries.js';
import {
  contestsAwaitingResolution,
  resolveContest,
  resolveMarket,
  voidContest,
  type ContestResolutionOutcome,
  type ResolvedMarket,
} from '../domain/contests/resolution.js';
import type { ResolutionProducer } from '../jobs/resolution-producer.js';

type Log = Pick<Logger, 'warn'>;

export interface ContestLifecycleDeps {
  forkDb: () => Em;
  bus: Bus;
  /** The `contests` queue (a contest whose every market is settled is resolved there). */
  resolution: Pick<ResolutionProducer, 'enqueue'>;
  log: Log;
}

export interface EntryInput {
  userId: string;
  contestId: string;
  picks: PickInput[];
  /** The body's idempotency_key (the entry carries it under a unique index). */
  key: string | null;
}

export interface ContestLifecycle {
  /** A paid entry, in the caller's transaction (the idempotency key's); `entered` publishes after its commit. */
  enter(tx: Tx, e: EntryInput): Promise<EntryRecord>;
  entered(entry: EntryRecord): Promise<void>;
  /** The operator creates a contest, in the caller's transaction (the audit's); `created` publishes after its commit. */
  create(tx: Tx, contest: NewContest): Promise<string>;
  created(contestId: string): Promise<void>;
  /** The operator sets a market's outcome, in the caller's transaction; `marketResolved` follows its commit. */
  resolveMarket(tx: Tx, marketId: number, outcome: ResolutionOutcome): Promise<ResolvedMarket>;
  /** Publishes, then enqueues the contest's resolution when that was its last open market (the relay is the backstop). */
  marketResolved(r: ResolvedMarket, log?: Log): Promise<void>;
  /** The operator voids an open contest (every entry refunded), in the caller's transaction; `voided` publishes. */
  void(tx: Tx, contestId: string): Promise<void>;
  voided(contestId: string): Promise<void>;
  /** The contests worker: resolve and pay (or void) in a transaction of its own; publishes when it changed the contest. */
  resolve(contestId: string): Promise<ContestResolutionOutcome>;
  /** The resolution relay: enqueues the open contests whose every market is settled; their ids. */
  relay(): Promise<string[]>;
  /**
   * A change that may show on any contest's pages, committed by its caller: a handle or X account that boards
   * show (src/trading/identity-lifecycle.ts), the demo seed.
   */
  allChanged(): Promise<void>;
}

export function createContestLifecycle(deps: ContestLifecycleDeps): ContestLifecycle {
  // Cached pages are keyed by the lower-case id, whatever case the path carried.
  const changed = (contestId: string) => publishContestsChanged(deps.bus, contestId.toLowerCase());
  return {
    enter: (tx, e) => enterContest(tx, e.userId, e.contestId, e.picks, e.key),
    entered: (entry) => changed(entry.contestId), // its pot, counts and board
    create: (tx, contest) => createContest(tx, contest),
    created: (contestId) => changed(contestId),
    resolveMarket: (tx, marketId, outcome) => resolveMarket(tx, marketId, outcome),
    async marketResolved(r, log = deps.log) {
      const contestId = r.market.contestId;
      await changed(contestId);
      if (!r.contestReady) return;
      // A lost enqueue is picked up by the resolution relay within a few seconds.
      await deps.resolution
        .enqueue(contestId)
        .catch((err: unknown) => log.warn({ err, contest_id: contestId }, 'could not enqueue the contest resolution; the relay will'));
    },
    void: (tx, contestId) => voidContest(tx, contestId),
    voided: (contestId) => changed(contestId),
    async resolve(contestId) {
      const outcome = await resolveContest(deps.forkDb(), contestId);
      if (outcome === 'resolved' || outcome === 'voided') await changed(contestId);
      return outcome;
    },
    async relay() {
      const ids = await contestsAwaitingResolution(deps.forkDb());
      for (const id of ids) await deps.resolution.enqueue(id);
      return ids;
    },
    allChanged: () => publishContestsChanged(deps.bus, null),
  };
}
