// Contests: lobby, contest by id, entries, leaderboard, top participants, popular entry, profile detail,
// and the operator's create / resolve-market / void. Thin: each handler calls one domain function and maps
// its record to the wire (src/http/handlers/contests-wire.ts).
import { leaderboard, popularEntry, topParticipants } from '../../domain/contests/board.js';
import { createContest } from '../../domain/contests/create.js';
import { enterContest, joinedContests, type EntryRecord } from '../../domain/contests/entries.js';
import { clampLimit, listContests } from '../../domain/contests/lobby.js';
import { profileContest } from '../../domain/contests/profile.js';
import { loadContest, loadMarkets } from '../../domain/contests/records.js';
import { resolveMarket, voidContest } from '../../domain/contests/resolution.js';
import type { PopularMarket } from '../../../generated/openapi/types.gen.js';
import type { ResolutionProducer } from '../../jobs/resolution-producer.js';
import type { HandlersFor, RequestContext } from '../handler.js';
import type { Auth } from '../auth.js';
import { idempotentWrite } from '../idempotent.js';
import { requireUser } from './principal.js';
import { contestByIdWire, contestDetailWire, leaderboardRowWire, lobbyRowWire, marketWire } from './contests-wire.js';

export interface ContestsDeps {
  resolution: ResolutionProducer;
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

const NO_STORE = { 'Cache-Control': 'no-store' };
const userIdOf = (auth: Auth): string | null => (auth.kind === 'user' ? auth.userId : null);

export function contestsHandlers(deps: ContestsDeps): HandlersFor<ContestsOperationId> {
  const { resolution } = deps;

  async function contestById({ db: em }: RequestContext, id: string, callerUserId: string | null) {
    const c = await loadContest(em, id);
    const markets = await loadMarkets(em, id);
    const joined = callerUserId ? (await joinedContests(em, callerUserId, [id])).has(id) : null;
    return contestByIdWire(c, markets, joined);
  }

  return {
    listContests: async ({ query: q }, { db: em, auth }) => {
      const page = await listContests(em, { status: q.status, category: q.category, cursor: q.cursor, limit: clampLimit(q.limit, 20, 50) });
      const me = userIdOf(auth);
      const joined = me
        ? await joinedContests(
            em,
            me,
            page.contests.map((c) => c.id),
          )
        : null;
      return {
        status: 200,
        body: { contests: page.contests.map((c) => lobbyRowWire(c, joined ? joined.has(c.id) : null)), next_cursor: page.nextCursor },
        headers: NO_STORE,
      };
    },

    getContest: async ({ params }, ctx) => ({ status: 200, body: await contestById(ctx, params.id, userIdOf(ctx.auth)), headers: NO_STORE }),

    // The key, the entry and its reservation commit together; rejections (409/422) are stored and replayed.
    createContestEntry: idempotentWrite<'createContestEntry', EntryRecord>({
      scope: (_req, { auth }) => `user:${requireUser(auth).userId}`,
      fingerprint: (req) => ({ contest_id: req.params.id, body: req.body }),
      write: async ({ params, body }, { db, auth, log }) => {
        const picks = body.picks.map((p) => ({ marketId: p.market_id, direction: p.direction }));
        const entry = await enterContest(db, requireUser(auth).userId, params.id, picks, body.idempotency_key);
        log.info({ contest_id: entry.contestId, entry_index: entry.entryIndex }, 'contest entry created');
        return entry;
      },
      outcome: (entry) => ({
        status: 201,
        body: {
          contest_id: entry.contestId,
          entry_index: entry.entryIndex,
          created_at_ms: entry.createdAtMs,
          picks: entry.picks.map((p) => ({ market_id: p.marketId, direction: p.direction })),
        },
        headers: NO_STORE,
      }),
      resourceOf: (entry) => entry.entryId,
    }),

    getContestLeaderboard: async ({ params, query }, { db, auth }) => {
      const board = await leaderboard(db, params.id, clampLimit(query.limit, 10, 100), userIdOf(auth));
      return {
        status: 200,
        body: {
          total_entries: board.totalEntries,
          entries: board.entries.map(leaderboardRowWire),
          caller: board.callerRows === null ? null : { rows: board.callerRows.map(leaderboardRowWire) },
        },
        headers: NO_STORE,
      };
    },

    getContestTopParticipants: async ({ params, query }, { db }) => {
      const windowMs = query.window_ms ?? 604_800_000;
      const rows = await topParticipants(db, params.id, windowMs, clampLimit(query.limit, 5, 25));
      return {
        status: 200,
        body: {
          window_ms: windowMs,
          participants: rows.map((p) => ({
            user_id: p.userId,
            handle: p.handle,
            x_handle: p.xHandle,
            x_avatar_url: p.xAvatarUrl,
            avatar_seed: p.avatarSeed,
            won_count: p.wonCount,
            total_winnings_micros: Number(p.totalWinnings),
          })),
        },
        headers: NO_STORE,
      };
    },

    getContestPopularEntry: async ({ params }, { db }) => {
      const p = await popularEntry(db, params.id);
      const markets: PopularMarket[] = p.markets.map((m) => ({ market_id: m.marketId, yes_count: m.yesCount, no_count: m.noCount }));
      return {
        status: 200,
        body: { total_entries: p.totalEntries, entry_visibility: p.visible ? 'visible' : 'hidden_while_betting_open', markets },
        headers: NO_STORE,
      };
    },

    getProfileContest: async ({ params }, { db }) => {
      const p = await profileContest(db, params.handle, params.id);
      return { status: 200, body: contestDetailWire(p), headers: NO_STORE };
    },

    createContest: async ({ body: b }, ctx) => {
      const id = await createContest(ctx.db, {
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
      });
      ctx.log.info({ contest_id: id, game_type: b.game_type, markets: b.markets.length }, 'contest created');
      return { status: 201, body: await contestById(ctx, id, null), headers: NO_STORE };
    },

    resolveMarket: async ({ params, body }, { db, log }) => {
      const marketId = params.market_id;
      const { outcome } = body;
      const r = await resolveMarket(db, marketId, outcome);
      log.info({ market_id: marketId, outcome, contest_id: r.market.contestId, contest_ready: r.contestReady }, 'contest market resolved');
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
      await voidContest(ctx.db, id);
      ctx.log.info({ contest_id: id }, 'contest voided and refunded');
      return { status: 200, body: await contestById(ctx, id, null), headers: NO_STORE };
    },
  };
}
