// Contests: lobby, contest by id, entries, leaderboard, top participants, popular entry, profile detail,
// and the operator's create / resolve-market / void. Thin, like the RFQ's (src/http/handlers/rfq-taker.ts): each
// write is one step of the contest lifecycle (src/trading/contest-lifecycle.ts), which publishes
// `contests.changed` after the commit and enqueues a contest's resolution; this module runs the step in its
// transaction (the idempotency key's, or the operator's audited one) and maps records to the wire
// (src/http/handlers/contests-wire.ts).
import type { EntryRecord } from '../../domain/contests/entries.js';
import { profileContest } from '../../domain/contests/profile.js';
import { loadContest, loadMarkets } from '../../domain/contests/records.js';
import type { ContestLifecycle } from '../../trading/contest-lifecycle.js';
import { NO_STORE, type HandlersFor, type RequestContext } from '../handler.js';
import { answerOnce, writeOnce } from '../idempotent.js';
import { requireUser } from './principal.js';
import { contestByIdWire, contestDetailWire, contestOf, entryWire, marketWire } from './contests-wire.js';
import { contestReadHandlers, type ContestReadCaches } from './contests-reads.js';

export interface ContestsDeps {
  /** The lifecycle's steps; every write below publishes `contests.changed` after its commit. */
  contests: ContestLifecycle;
  /** The public reads' caches (dropped on `contests.changed`). */
  caches: ContestReadCaches;
}

type ContestsOperationId =
  | 'listContests'
  | 'getContest'
  | 'createContestEntry'
  | 'getContestLeaderboard'
  | 'getContestTopParticipants'
  | 'getContestPopularEntry'
  | 'getProfileContest'
  | 'createContest'
  | 'resolveMarket'
  | 'voidContest';

type Handlers = HandlersFor<ContestsOperationId>;

/** The operator's view of a contest after a write (no caller fields). */
async function contestById({ db: em }: RequestContext, id: string) {
  const c = await loadContest(em, id);
  return contestByIdWire(c, await loadMarkets(em, id), null);
}

/** The entry as stored under its key: a 201, and the entry's id. */
const entryCreated = (entry: EntryRecord) => ({
  reply: { status: 201 as const, body: entryWire(entry), headers: NO_STORE },
  resourceId: entry.entryId,
});

export function contestsHandlers(deps: ContestsDeps): Handlers {
  const { contests } = deps;

  // The key, the entry and its reservation commit together; rejections (409/422) are stored and replayed.
  const createContestEntry: Handlers['createContestEntry'] = async (req, ctx) => {
    const { params, body } = req;
    const userId = requireUser(ctx.auth).userId;
    const picks = body.picks.map((p) => ({ marketId: p.market_id, direction: p.direction }));
    const w = await writeOnce(
      req,
      ctx,
      { scope: `user:${userId}`, print: { contest_id: params.id, body } },
      async ({ db, log }) => {
        const entry = await contests.enter(db, { userId, contestId: params.id, picks, key: body.idempotency_key });
        log.info({ contest_id: entry.contestId, entry_index: entry.entryIndex }, 'contest entry created');
        return entry;
      },
      entryCreated,
    );
    if (!w.replayed) await contests.entered(w.value); // committed: pot, counts, board
    return answerOnce(req, ctx, w);
  };

  const createContest: Handlers['createContest'] = async ({ body: b }, ctx) => {
    const id = await ctx.audit.within(
      ctx.db,
      (tx) => contests.create(tx, contestOf(b)),
      (contestId) => contestId,
    );
    ctx.log.info({ contest_id: id, game_type: b.game_type, markets: b.markets.length }, 'contest created');
    await contests.created(id);
    return { status: 201, body: await contestById(ctx, id), headers: NO_STORE };
  };

  const resolveMarket: Handlers['resolveMarket'] = async ({ params, body }, { db, log, audit }) => {
    const { market_id: marketId } = params;
    const { outcome } = body;
    const r = await audit.within(db, (tx) => contests.resolveMarket(tx, marketId, outcome));
    log.info({ market_id: marketId, outcome, contest_id: r.market.contestId, contest_ready: r.contestReady }, 'contest market resolved');
    await contests.marketResolved(r, log);
    return { status: 200, body: marketWire(r.market), headers: NO_STORE };
  };

  const voidContest: Handlers['voidContest'] = async ({ params }, ctx) => {
    await ctx.audit.within(ctx.db, (tx) => contests.void(tx, params.id));
    ctx.log.info({ contest_id: params.id }, 'contest voided and refunded');
    await contests.voided(params.id);
    return { status: 200, body: await contestById(ctx, params.id), headers: NO_STORE };
  };

  return {
    ...contestReadHandlers(deps.caches),
    getProfileContest: async ({ params }, { db }) => {
      const p = await profileContest(db, params.handle, params.id);
      return { status: 200, body: contestDetailWire(p), headers: NO_STORE };
    },
    createContestEntry,
    createContest,
    resolveMarket,
    voidContest,
  };
}
