// Contests and their markets: rows, the lobby page, creation, market resolution and contest settlement.
// The set-based updates over entries (a market's resolution, a contest's payouts) are written with the
// `sql` tag and one narrow result type each; everything else with the query builder, typed by the schema.
import { sql } from 'kysely';
import type { Db } from '../schema.js';
import { int8, int8ToBigint, int8ToNumber } from '../int8.js';
import {
  CONTEST_COLUMNS,
  MARKET_COLUMNS,
  opt8,
  parseContest,
  parseMarket,
  type ContestRow,
  type NewContestMarketRow,
  type NewContestRow,
} from './contests.rows.js';
import { anyOf } from '../sql.js';
import type { Direction, MarketOutcome } from '../vocabulary.js';

export type { ContestMarketRow, ContestRow, NewContestMarketRow, NewContestRow } from './contests.rows.js';

export interface LobbyFilter {
  status?: ContestRow['status'] | undefined;
  category?: ContestRow['category'] | undefined;
  /** Keyset: rows strictly after (created_at_ms, id) in (desc, desc) order. */
  after?: { createdAtMs: number; id: string } | undefined;
  limit: number;
}

export class ContestsRepository {
  constructor(private readonly db: Db) {}

  async findContest(id: string, opts: { forUpdate?: boolean } = {}) {
    const q = this.db.selectFrom('contests').select(CONTEST_COLUMNS).where('id', '=', id);
    const row = await (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst();
    return row && parseContest(row);
  }

  /** One lobby page, newest first; each filter combination has its own index. */
  async lobbyPage(f: LobbyFilter) {
    let q = this.db.selectFrom('contests').select(CONTEST_COLUMNS);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.category) q = q.where('category', '=', f.category);
    if (f.after) {
      const { createdAtMs, id } = f.after;
      q = q.where(({ eb, refTuple, tuple }) => eb(refTuple('created_at_ms', 'id'), '<', tuple(int8(createdAtMs), id)));
    }
    return (await q.orderBy('created_at_ms', 'desc').orderBy('id', 'desc').limit(f.limit).execute()).map(parseContest);
  }

  async lobbyCursorKey() {
    return this.db.selectFrom('service_keys').select('key').where('name', '=', 'lobby_cursor').executeTakeFirst();
  }

  async marketsOf(contestId: string) {
    return (
      await this.db.selectFrom('contest_markets').select(MARKET_COLUMNS).where('contest_id', '=', contestId).orderBy('position').execute()
    ).map(parseMarket);
  }

  async marketForUpdate(marketId: number) {
    const row = await this.db
      .selectFrom('contest_markets')
      .select(MARKET_COLUMNS)
      .where('market_id', '=', int8(marketId))
      .forUpdate()
      .executeTakeFirst();
    return row && parseMarket(row);
  }

  marketOwner(marketId: number) {
    return this.db.selectFrom('contest_markets').select('contest_id').where('market_id', '=', int8(marketId)).executeTakeFirst();
  }

  marketStatuses(contestId: string) {
    return this.db.selectFrom('contest_markets').select('status').where('contest_id', '=', contestId).execute();
  }

  scoreCounts(contestId: string) {
    return this.db
      .selectFrom('contest_score_counts')
      .select(['score', 'entries'])
      .where('contest_id', '=', contestId)
      .where('entries', '>', 0)
      .execute();
  }

  /** Rebuilds a contest's score histogram from its entries. */
  async rebuildScoreCounts(contestId: string): Promise<void> {
    await this.db.deleteFrom('contest_score_counts').where('contest_id', '=', contestId).execute();
    await this.db
      .insertInto('contest_score_counts')
      .columns(['contest_id', 'score', 'entries'])
      .expression((eb) =>
        eb
          .selectFrom('contest_entries')
          .select(['contest_id', 'score', sql<number>`count(*)::int`.as('entries')])
          .where('contest_id', '=', contestId)
          .groupBy(['contest_id', 'score']),
      )
      .execute();
  }

  // ------------------------------------------------------------ creation

  async insertContest(row: NewContestRow): Promise<void> {
    await this.db
      .insertInto('contests')
      .values({
        ...row,
        bet_amount: int8(row.bet_amount),
        protocol_prize_pool: int8(row.protocol_prize_pool),
        entry_opens_at_ms: opt8(row.entry_opens_at_ms),
        betting_closes_ms: int8(row.betting_closes_ms),
        live_ends_at_ms: opt8(row.live_ends_at_ms),
        created_at_ms: int8(row.created_at_ms),
      })
      .execute();
  }

  /** Draws `n` ids from market_id_seq through markets rows of kind 'contest'. */
  /** Draws `n` ids (bigint) from market_id_seq. */
  async newContestMarketIds(n: number) {
    const rows = await this.db
      .insertInto('markets')
      .columns(['kind'])
      .expression(sql<{ kind: 'contest' }>`select 'contest' from generate_series(1, ${n}::integer)`)
      .returning('market_id')
      .execute();
    return rows.map((r) => ({ market_id: int8ToBigint(r.market_id) }));
  }

  async insertMarkets(rows: readonly NewContestMarketRow[]): Promise<void> {
    await this.db
      .insertInto('contest_markets')
      .values(
        rows.map((r) => ({
          ...r,
          market_id: int8(r.market_id),
          betting_closes_at_ms: opt8(r.betting_closes_at_ms),
          live_ends_at_ms: opt8(r.live_ends_at_ms),
          resolution_time_ms: opt8(r.resolution_time_ms),
        })),
      )
      .execute();
  }

  // ------------------------------------------------------------ resolution

  async setMarketResolution(
    marketId: number,
    status: 'RESOLVED' | 'VOIDED',
    outcome: MarketOutcome | null,
    resolvedAtMs: number,
  ): Promise<void> {
    await this.db
      .updateTable('contest_markets')
      .set({ status, outcome, resolved_at_ms: int8(resolvedAtMs) })
      .where('market_id', '=', int8(marketId))
      .execute();
  }

  /** A voided market: every entry picking it gets one more resolved leg. */
  async countVoidedLeg(marketId: number): Promise<void> {
    await sql`update contest_entries e set resolved_leg_count = e.resolved_leg_count + 1
      from contest_entry_picks p where p.entry_id = e.id and p.market_id = ${int8(marketId)}`.execute(this.db);
  }

  /** A resolved market: one more resolved leg for every entry picking it, a win (and a point when `scores`) for the winning side. */
  async countResolvedLeg(marketId: number, winning: Direction, scores: boolean): Promise<void> {
    await sql`update contest_entries e
        set resolved_leg_count = e.resolved_leg_count + 1,
            resolved_win_count = e.resolved_win_count + (p.direction = ${winning})::int,
            score = e.score + (p.direction = ${winning} and ${scores}::boolean)::int
       from contest_entry_picks p where p.entry_id = e.id and p.market_id = ${int8(marketId)}`.execute(this.db);
  }

  decrementOpenMarkets(contestId: string) {
    return this.db
      .updateTable('contests')
      .set((eb) => ({ open_market_count: eb('open_market_count', '-', 1) }))
      .where('id', '=', contestId)
      .returning('open_market_count')
      .executeTakeFirstOrThrow();
  }

  async entriesForSettlement(contestId: string) {
    const rows = await this.db
      .selectFrom('contest_entries')
      .select(['id', 'user_id', 'score', 'created_at_ms'])
      .where('contest_id', '=', contestId)
      .execute();
    return rows.map((r) => ({ ...r, created_at_ms: int8ToNumber(r.created_at_ms) }));
  }

  /** Every ranked entry's payout (bigint micros) and rank in one statement. */
  async setPayouts(entryIds: readonly string[], payouts: readonly bigint[], ranks: readonly number[]): Promise<void> {
    await sql`update contest_entries e set payout = v.payout, rank = v.rank
      from unnest(${entryIds}::uuid[], ${payouts.map(int8)}::bigint[], ${ranks}::integer[]) as v(id, payout, rank) where e.id = v.id`.execute(
      this.db,
    );
  }

  async markResolved(contestId: string, resolvedAtMs: number): Promise<void> {
    await this.db
      .updateTable('contests')
      .set({ status: 'resolved', resolved_at_ms: int8(resolvedAtMs) })
      .where('id', '=', contestId)
      .execute();
  }

  async markVoided(contestId: string, voidedAtMs: number): Promise<void> {
    await this.db
      .updateTable('contests')
      .set({ status: 'voided', voided_at_ms: int8(voidedAtMs) })
      .where('id', '=', contestId)
      .execute();
  }

  awaitingResolution(limit: number) {
    // Literals, not parameters: they are the predicate of contests_awaiting_resolution_idx.
    return this.db
      .selectFrom('contests')
      .select('id')
      .where('status', '=', sql.lit('open'))
      .where('open_market_count', '=', sql.lit(0))
      .limit(limit)
      .execute();
  }

  /** The picks of these entries, in market order (the profile view). */
  async picksOf(entryIds: readonly string[]) {
    const rows = await this.db
      .selectFrom('contest_entry_picks as p')
      .innerJoin('contest_markets as m', 'm.market_id', 'p.market_id')
      .select(['p.entry_id', 'p.market_id', 'p.direction'])
      .where('p.entry_id', '=', anyOf(entryIds, 'uuid'))
      .orderBy('m.position')
      .execute();
    return rows.map((r) => ({ ...r, market_id: int8ToNumber(r.market_id) }));
  }
}
