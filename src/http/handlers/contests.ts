// Contests: lobby, contest by id, entries, leaderboard, top participants, popular entry, profile detail,
// and the operator's create / resolve-market / void. Thin: each handler calls one domain function and maps
// its record to the wire (src/http/handlers/contests-wire.ts).
import type { Orm } from '../../db/orm.js';
import type { CreateContestRequest, CreateEntryRequest, ResolveMarketRequest } from '../../../generated/openapi/types.gen.js';
import { leaderboard, popularEntry, topParticipants } from '../../domain/contests/board.js';
import { createContest } from '../../domain/contests/create.js';
import { joinedContests, submitEntry } from '../../domain/contests/entries.js';
import { clampLimit, listContests } from '../../domain/contests/lobby.js';
import { profileContest } from '../../domain/contests/profile.js';
import { loadContest, loadMarkets, type ContestStatus } from '../../domain/contests/records.js';
import { resolveMarket, voidContest } from '../../domain/contests/resolution.js';
import type { Category } from '../../domain/contests/images.js';
import type { ResolutionProducer } from '../../jobs/resolution-producer.js';
import type { Handlers, HandlerRequest } from '../handler.js';
import { idempotent } from '../idempotent.js';
import { requireUser } from './principal.js';
import { contestByIdWire, contestDetailWire, leaderboardRowWire, lobbyRowWire, marketWire } from './contests-wire.js';

export interface ContestsDeps {
  orm: Orm;
  resolution: ResolutionProducer;
}

const NO_STORE = { 'Cache-Control': 'no-store' };
const userIdOf = (req: HandlerRequest): string | null => (req.auth.kind === 'user' ? req.auth.userId : null);

export function contestsHandlers(deps: ContestsDeps): Handlers {
  const { orm, resolution } = deps;

  async function contestById(id: string, callerUserId: string | null) {
    const em = orm.em.fork();
    const c = await loadContest(em, id);
    const markets = await loadMarkets(em, id);
    const joined = callerUserId ? (await joinedContests(em, callerUserId, [id])).has(id) : null;
    return contestByIdWire(c, markets, joined);
  }

  return {
    listContests: async (req) => {
      const em = orm.em.fork();
      const q = req.query as { status?: ContestStatus; category?: Category; cursor?: string; limit?: number };
      const page = await listContests(em, { status: q.status, category: q.category, cursor: q.cursor, limit: clampLimit(q.limit, 20, 50) });
      const me = userIdOf(req);
      const joined = me ? await joinedContests(em, me, page.contests.map((c) => c.id)) : null;
      return {
        status: 200,
        body: { contests: page.contests.map((c) => lobbyRowWire(c, joined ? joined.has(c.id) : null)), next_cursor: page.nextCursor },
        headers: NO_STORE,
      };
    },

    getContest: async (req) => ({ status: 200, body: await contestById(req.params.id as string, userIdOf(req)), headers: NO_STORE }),

    createContestEntry: idempotent(
      orm,
      (req) => `user:${requireUser(req.auth).userId}`,
      async (req) => {
        const { userId } = requireUser(req.auth);
        const body = req.body as CreateEntryRequest;
        const entry = await submitEntry(
          orm.em.fork(),
          userId,
          req.params.id as string,
          body.picks.map((p) => ({ marketId: p.market_id, direction: p.direction })),
        );
        req.log.info({ contest_id: entry.contestId, entry_index: entry.entryIndex }, 'contest entry created');
        return {
          status: 201,
          body: {
            contest_id: entry.contestId,
            entry_index: entry.entryIndex,
            created_at_ms: entry.createdAtMs,
            picks: entry.picks.map((p) => ({ market_id: p.marketId, direction: p.direction })),
          },
          headers: NO_STORE,
        };
      },
      (req) => ({ contest_id: req.params.id, body: req.body }),
    ),

    getContestLeaderboard: async (req) => {
      const q = req.query as { limit?: number };
      const board = await leaderboard(orm.em.fork(), req.params.id as string, clampLimit(q.limit, 10, 100), userIdOf(req));
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

    getContestTopParticipants: async (req) => {
      const q = req.query as { window_ms?: number; limit?: number };
      const windowMs = q.window_ms ?? 604_800_000;
      const rows = await topParticipants(orm.em.fork(), req.params.id as string, windowMs, clampLimit(q.limit, 5, 25));
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

    getContestPopularEntry: async (req) => {
      const p = await popularEntry(orm.em.fork(), req.params.id as string);
      return {
        status: 200,
        body: { total_entries: p.totalEntries, markets: p.markets.map((m) => ({ market_id: m.marketId, yes_count: m.yesCount, no_count: m.noCount })) },
        headers: NO_STORE,
      };
    },

    getProfileContest: async (req) => {
      const p = await profileContest(orm.em.fork(), req.params.handle as string, req.params.id as string);
      return { status: 200, body: contestDetailWire(p), headers: NO_STORE };
    },

    createContest: async (req) => {
      const b = req.body as CreateContestRequest;
      const id = await createContest(orm.em.fork(), {
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
      req.log.info({ contest_id: id, game_type: b.game_type, markets: b.markets.length }, 'contest created');
      return { status: 201, body: await contestById(id, null), headers: NO_STORE };
    },

    resolveMarket: async (req) => {
      const marketId = req.params.market_id as number;
      const { outcome } = req.body as ResolveMarketRequest;
      const r = await resolveMarket(orm.em.fork(), marketId, outcome);
      req.log.info({ market_id: marketId, outcome, contest_id: r.market.contestId, contest_ready: r.contestReady }, 'contest market resolved');
      if (r.contestReady) {
        // A lost enqueue is picked up by the resolution relay within a few seconds.
        await resolution.enqueue(r.market.contestId).catch((err: unknown) => req.log.warn({ err, contest_id: r.market.contestId }, 'could not enqueue the contest resolution; the relay will'));
      }
      return { status: 200, body: marketWire(r.market), headers: NO_STORE };
    },

    voidContest: async (req) => {
      const id = req.params.id as string;
      await voidContest(orm.em.fork(), id);
      req.log.info({ contest_id: id }, 'contest voided and refunded');
      return { status: 200, body: await contestById(id, null), headers: NO_STORE };
    },
  };
}
