// Contests and their markets: rows, the lobby page, creation, market resolution and contest settlement.
// The set-based updates over entries (a market's resolution, a contest's payouts) are written with the
// `sql` tag and one narrow result type each; everything else with the query builder, typed by the schema.
import { sql, type Insertable, type Selectable } from 'kysely';
import type { DB, Db } from '../schema.js';
import { anyOf } from '../sql.js';
import type { Direction, MarketOutcome } from '../vocabulary.js';

export const CONTEST_COLUMNS = [
  'id',
  'title',
  'category',
  'game_type',
  'description',
  'status',
  'bet_amount',
  'protocol_prize_pool',
  'entry_cap',
  'max_entries_per_user',
  'entries_filled',
  'open_market_count',
  'entry_opens_at_ms',
  'betting_closes_ms',
  'live_ends_at_ms',
  'bet_type_kind',
  'bet_type_value',
  'winning_split_bps',
  'image_id',
  'entry_visibility',
  'created_at_ms',
  'resolved_at_ms',
] as const satisfies ReadonlyArray<keyof DB['contests']>;

export const MARKET_COLUMNS = [
  'market_id',
  'contest_id',
  'position',
  'category',
  'name',
  'description',
  'status',
  'outcome',
  'source_kind',
  'source_event_id',
  'source_market_id',
  'betting_closes_at_ms',
  'live_ends_at_ms',
  'resolution_time_ms',
  'up_count',
  'down_count',
] as const satisfies ReadonlyArray<keyof DB['contest_markets']>;

export type ContestRow = Pick<Selectable<DB['contests']>, (typeof CONTEST_COLUMNS)[number]>;
export type ContestMarketRow = Pick<Selectable<DB['contest_markets']>, (typeof MARKET_COLUMNS)[number]>;
export type NewContestRow = Insertable<DB['contests']>;
export type NewContestMarketRow = Insertable<DB['contest_markets']>;

export interface LobbyFilter {
  status?: ContestRow['status'] | undefined;
  category?: ContestRow['category'] | undefined;
  /** Keyset: rows strictly after (created_at_ms, id) in (desc, desc) order. */
  after?: { createdAtMs: string; id: string } | undefined;
  limit: number;
}

export class ContestsRepository {
  constructor(private readonly db: Db) {}

  findContest(id: string, opts: { forUpdate?: boolean } = {}) {
    const q = this.db.selectFrom('contests').select(CONTEST_COLUMNS).where('id', '=', id);
    return (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst();
  }

  /** One lobby page, newest first; each filter combination has its own index. */
  lobbyPage(f: LobbyFilter) {
    let q = this.db.selectFrom('contests').select(CONTEST_COLUMNS);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.category) q = q.where('category', '=', f.category);
    if (f.after) {
      const { createdAtMs, id } = f.after;
      q = q.where(({ eb, refTuple, tuple }) => eb(refTuple('created_at_ms', 'id'), '<', tuple(createdAtMs, id)));
    }
    return q.orderBy('created_at_ms', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
  }

  async lobbyCursorKey() {
    return this.db.selectFrom('service_keys').select('key').where('name', '=', 'lobby_cursor').executeTakeFirst();
  }

  marketsOf(contestId: string) {
    return this.db.selectFrom('contest_markets').select(MARKET_COLUMNS).where('contest_id', '=', contestId).orderBy('position').execute();
  }

  marketForUpdate(marketId: string) {
    return this.db.selectFrom('contest_markets').select(MARKET_COLUMNS).where('market_id', '=', marketId).forUpdate().executeTakeFirst();
  }

  marketOwner(marketId: string) {
    return this.db.selectFrom('contest_markets').select('contest_id').where('market_id', '=', marketId).executeTakeFirst();
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
    await this.db.insertInto('contests').values(row).execute();
  }

  /** Draws `n` ids from market_id_seq through markets rows of kind 'contest'. */
  newContestMarketIds(n: number) {
    return this.db
      .insertInto('markets')
      .columns(['kind'])
      .expression(sql<{ kind: 'contest' }>`select 'contest' from generate_series(1, ${n}::integer)`)
      .returning('market_id')
      .execute();
  }

  async insertMarkets(rows: readonly NewContestMarketRow[]): Promise<void> {
    await this.db.insertInto('contest_markets').values(rows).execute();
  }

  // ------------------------------------------------------------ resolution

  async setMarketResolution(marketId: string, status: 'RESOLVED' | 'VOIDED', outcome: MarketOutcome | null, resolvedAtMs: string): Promise<void> {
    await this.db.updateTable('contest_markets').set({ status, outcome, resolved_at_ms: resolvedAtMs }).where('market_id', '=', marketId).execute();
  }

  /** A voided market: every entry picking it gets one more resolved leg. */
  async countVoidedLeg(marketId: string): Promise<void> {
    await sql`update contest_entries e set resolved_leg_count = e.resolved_leg_count + 1
      from contest_entry_picks p where p.entry_id = e.id and p.market_id = ${marketId}`.execute(this.db);
  }

  /** A resolved market: one more resolved leg for every entry picking it, a win (and a point when `scores`) for the winning side. */
  async countResolvedLeg(marketId: string, winning: Direction, scores: boolean): Promise<void> {
    await sql`update contest_entries e
        set resolved_leg_count = e.resolved_leg_count + 1,
            resolved_win_count = e.resolved_win_count + (p.direction = ${winning})::int,
            score = e.score + (p.direction = ${winning} and ${scores}::boolean)::int
       from contest_entry_picks p where p.entry_id = e.id and p.market_id = ${marketId}`.execute(this.db);
  }

  decrementOpenMarkets(contestId: string) {
    return this.db
      .updateTable('contests')
      .set((eb) => ({ open_market_count: eb('open_market_count', '-', 1) }))
      .where('id', '=', contestId)
      .returning('open_market_count')
      .executeTakeFirstOrThrow();
  }

  entriesForSettlement(contestId: string) {
    return this.db.selectFrom('contest_entries').select(['id', 'user_id', 'score', 'created_at_ms']).where('contest_id', '=', contestId).execute();
  }

  /** Every ranked entry's payout and rank in one statement (payouts as int8 decimal strings). */
  async setPayouts(entryIds: readonly string[], payouts: readonly string[], ranks: readonly number[]): Promise<void> {
    await sql`update contest_entries e set payout = v.payout, rank = v.rank
      from unnest(${entryIds}::uuid[], ${payouts}::bigint[], ${ranks}::integer[]) as v(id, payout, rank) where e.id = v.id`.execute(this.db);
  }

  async markResolved(contestId: string, resolvedAtMs: string): Promise<void> {
    await this.db.updateTable('contests').set({ status: 'resolved', resolved_at_ms: resolvedAtMs }).where('id', '=', contestId).execute();
  }

  async markVoided(contestId: string, voidedAtMs: string): Promise<void> {
    await this.db.updateTable('contests').set({ status: 'voided', voided_at_ms: voidedAtMs }).where('id', '=', contestId).execute();
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
  picksOf(entryIds: readonly string[]) {
    return this.db
      .selectFrom('contest_entry_picks as p')
      .innerJoin('contest_markets as m', 'm.market_id', 'p.market_id')
      .select(['p.entry_id', 'p.market_id', 'p.direction'])
      .where('p.entry_id', '=', anyOf(entryIds, 'uuid'))
      .orderBy('m.position')
      .execute();
  }
}

export const contestsRepository = (db: Db) => new ContestsRepository(db);
