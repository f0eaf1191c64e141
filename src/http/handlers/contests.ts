// Contests: lobby, contest by id, entries, leaderboard, top participants, popular entry, profile detail,
// and the operator's create / resolve-market / void. Thin: each handler calls one domain function and maps
// its record to the wire (src/http/handlers/contests-wire.ts).
import { createContest, type NewContest } from '../../domain/contests/create.js';
import type { CreateContestRequest } from '../../../generated/openapi/types.gen.js';
import { enterContest, type EntryRecord } from '../../domain/contests/entries.js';
import { profileContest } from '../../domain/contests/profile.js';
import { loadContest, loadMarkets } from '../../domain/contests/records.js';
import { resolveMarket, voidContest } from '../../domain/contests/resolution.js';
import type { ResolutionProducer } from '../../jobs/resolution-producer.js';
import { NO_STORE, type HandlersFor, type RequestContext } from '../handler.js';
import { answerOnce, writeOnce } from '../idempotent.js';
import { requireUser } from './principal.js';
import { contestByIdWire, contestDetailWire, marketWire } from './contests-wire.js';
import { contestReadHandlers, type ContestReadCaches } from './contests-reads.js';
import { publishContestsChanged } from '../../bus/contest-events.js';
import type { Bus } from '../../bus/bus.js';

export interface ContestsDeps {
  resolution: ResolutionProducer;
  /** The public reads' caches; every write below publishes `contests.changed` after its commit. */
  caches: ContestReadCaches;
  bus: Bus;
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

export function contestsHandlers(deps: ContestsDeps): HandlersFor<ContestsOperationId> {
  const { resolution, bus } = deps;
  const changed = (contestId: string) => publishContestsChanged(bus, contestId);

  /** The operator's view of a contest after a write (no caller fields). */
  async function contestById({ db: em }: RequestContext, id: string) {
    const c = await loadContest(em, id);
    return contestByIdWire(c, await loadMarkets(em, id), null);
  }

  return {
    ...contestReadHandlers(deps.caches),

    createContestEntry: async (req, ctx) => {
      const { params, body } = req;
      // The key, the entry and its reservation commit together; rejections (409/422) are stored and replayed.
      const w = await writeOnce(
        req,
        ctx,
        { scope: `user:${requireUser(ctx.auth).userId}`, print: { contest_id: params.id, body } },
        async ({ db, auth, log }) => {
          const picks = body.picks.map((p) => ({ marketId: p.market_id, direction: p.direction }));
          const entry = await enterContest(db, requireUser(auth).userId, params.id, picks, body.idempotency_key);
          log.info({ contest_id: entry.contestId, entry_index: entry.entryIndex }, 'contest entry created');
          return entry;
        },
        (entry: EntryRecord) => ({
          reply: {
            status: 201 as const,
            body: {
              contest_id: entry.contestId,
              entry_index: entry.entryIndex,
              created_at_ms: entry.createdAtMs,
              picks: entry.picks.map((p) => ({ market_id: p.marketId, direction: p.direction })),
            },
            headers: NO_STORE,
          },
          resourceId: entry.entryId,
        }),
      );
      const reply = await answerOnce(req, ctx, w);
      if (reply.status === 201) await changed(req.params.id.toLowerCase()); // committed: pot, counts, board
      return reply;
    },

    getProfileContest: async ({ params }, { db }) => {
      const p = await profileContest(db, params.handle, params.id);
      return { status: 200, body: contestDetailWire(p), headers: NO_STORE };
    },

    createContest: async ({ body: b }, ctx) => {
      const id = await ctx.audit.within(
        ctx.db,
        (tx) => createContest(tx, contestOf(b)),
        (contestId) => contestId,
      );
      ctx.log.info({ contest_id: id, game_type: b.game_type, markets: b.markets.length }, 'contest created');
      await changed(id);
      return { status: 201, body: await contestById(ctx, id), headers: NO_STORE };
    },

    resolveMarket: async ({ params, body }, { db, log, audit }) => {
      const marketId = params.market_id;
      const { outcome } = body;
      const r = await audit.within(db, (tx) => resolveMarket(tx, marketId, outcome));
      log.info({ market_id: marketId, outcome, contest_id: r.market.contestId, contest_ready: r.contestReady }, 'contest market resolved');
      await changed(r.market.contestId);
      if (r.contestReady) {
        // A lost enqueue is picked up by the resolution relay within a few seconds.
        await resolution
          .enqueue(r.market.contestId)
          .catch((err: unknown) => log.warn({ err, contest_id: r.market.contestId }, 'could not enqueue the contest resolution; the relay will'));
      }
      return { status: 200, body: marketWire(r.market), headers: NO_STORE };
    },

    voidContest: async ({ params }, ctx) => {
      const id = params.id;
      await ctx.audit.within(ctx.db, (tx) => voidContest(tx, id));
      ctx.log.info({ contest_id: id }, 'contest voided and refunded');
      await changed(id.toLowerCase());
      return { status: 200, body: await contestById(ctx, id), headers: NO_STORE };
    },
  };
}

/** The create request as the domain's NewContest. */
function contestOf(b: CreateContestRequest): NewContest {
  return {
    title: b.title,
    category: b.category,
    gameType: b.game_type,
    description: b.description,
    betAmount: BigInt(b.bet_amount_micros),
    prizePool: BigInt(b.protocol_prize_pool_micros),
    entryCap: b.entry_cap,
    maxEntriesPerUser: b.max_entries_per_user ?? 1,
    entryOpensAtMs: b.entry_opens_at_ms,
    bettingClosesMs: b.betting_closes_ms,
    liveEndsAtMs: b.live_ends_at_ms,
    betType: b.bet_type,
    winningSplitBps: b.winning_split_bps,
    imageId: b.image_id,
    entryVisibility: b.entry_visibility ?? 'hidden_while_betting_open',
    markets: b.markets.map((m) => ({
      category: m.category,
      name: m.name,
      description: m.description,
      sourceKind: m.source_kind,
      sourceEventId: m.source_event_id,
      sourceMarketId: m.source_market_id,
      bettingClosesAtMs: m.betting_closes_at_ms,
      liveEndsAtMs: m.live_ends_at_ms,
      resolutionTimeMs: m.resolution_time_ms,
    })),
  };
}
