// Contest reads that join users: the leaderboard, top participants, popular entry and the profile view.
// The leaderboard reads the (contest_id, score desc, created_at_ms, id) index; top participants reads the
// resolved-contests and paid-entries indexes (their predicates are SQL literals here, so any plan can use them).
import { sql, type SelectQueryBuilder } from 'kysely';
import { int8, int8ToBigint, int8ToBigintOrNull, int8ToNumber, int8ToNumberOrNull } from '../int8.js';
import type { DB, Db } from '../schema.js';

const ENTRY_COLUMNS = [
  'e.id',
  'e.user_id',
  'e.entry_index',
  'e.score',
  'e.pick_count',
  'e.resolved_leg_count',
  'e.resolved_win_count',
  'e.payout',
  'u.handle',
  'u.x_handle',
  'u.x_avatar_url',
] as const;

/** An entry's payout as bigint micros (null until its contest resolves). */
const parsePayout = <R extends { payout: string | null }>(r: R) => ({ ...r, payout: int8ToBigintOrNull(r.payout) });

export class ContestBoardsRepository {
  constructor(private readonly db: Db) {}

  private entriesWithUsers() {
    return this.db.selectFrom('contest_entries as e').innerJoin('users as u', 'u.id', 'e.user_id').select(ENTRY_COLUMNS);
  }

  private boardOrder<O>(q: SelectQueryBuilder<DB & { e: DB['contest_entries']; u: DB['users'] }, 'e' | 'u', O>) {
    return q.orderBy('e.score', 'desc').orderBy('e.created_at_ms').orderBy('e.id');
  }

  async leaderboardTop(contestId: string, limit: number) {
    return (
      await this.boardOrder(this.entriesWithUsers().where('e.contest_id', '=', contestId))
        .limit(limit)
        .execute()
    ).map(parsePayout);
  }

  /** Every entry of one user in the contest, in board order. */
  async leaderboardOfUser(contestId: string, userId: string) {
    return (
      await this.boardOrder(this.entriesWithUsers().where('e.user_id', '=', userId).where('e.contest_id', '=', contestId)).execute()
    ).map(parsePayout);
  }

  /** Users ranked by payouts across resolved contests of a category and game type in [fromMs, toMs]. */
  /** Totals in bigint micros. */
  async topParticipants(p: { category: string; gameType: string; fromMs: number; toMs: number; limit: number }) {
    const won = this.db
      .selectFrom('contests as c')
      .innerJoin('contest_entries as e', (j) => j.onRef('e.contest_id', '=', 'c.id').on('e.payout', '>', sql.lit('0')))
      .select([
        'e.user_id',
        sql<string>`sum(e.payout)`.as('total'),
        sql<number>`count(distinct e.contest_id) filter (where e.payout > c.bet_amount)::int`.as('won'),
      ])
      .where('c.status', '=', sql.lit('resolved'))
      .where('c.category', '=', p.category as DB['contests']['category'])
      .where('c.game_type', '=', p.gameType as DB['contests']['game_type'])
      .where((eb) => eb.between('c.resolved_at_ms', int8(p.fromMs), int8(p.toMs)))
      .groupBy('e.user_id');
    const rows = await this.db
      .selectFrom(won.as('w'))
      .innerJoin('users as u', 'u.id', 'w.user_id')
      .select(['w.user_id', 'w.total', 'w.won', 'u.handle', 'u.x_handle', 'u.x_avatar_url'])
      .orderBy('w.total', 'desc')
      .orderBy('w.won', 'desc')
      .orderBy('w.user_id')
      .limit(p.limit)
      .execute();
    return rows.map((r) => ({ ...r, total: int8ToBigint(r.total) }));
  }

  /**
   * Over the resolved contests of a category and game type: the oldest resolution time in [fromMs, toMs] and
   * the first after toMs (contests_resolved_kind_idx): when a top-participants answer can change by the clock.
   */
  async resolutionTimesAround(p: { category: string; gameType: string; fromMs: number; toMs: number }) {
    const toMs = int8(p.toMs);
    const r = await this.db
      .selectFrom('contests')
      .select([
        sql<string | null>`min(resolved_at_ms) filter (where resolved_at_ms <= ${toMs})`.as('oldest_in'),
        sql<string | null>`min(resolved_at_ms) filter (where resolved_at_ms > ${toMs})`.as('next_in'),
      ])
      .where('status', '=', sql.lit('resolved'))
      .where('category', '=', p.category as DB['contests']['category'])
      .where('game_type', '=', p.gameType as DB['contests']['game_type'])
      .where('resolved_at_ms', '>=', int8(p.fromMs))
      .executeTakeFirstOrThrow();
    return { oldest_in: int8ToNumberOrNull(r.oldest_in), next_in: int8ToNumberOrNull(r.next_in) };
  }

  /** Pick counters per market, in the contest's market order. */
  async pickCounts(contestId: string) {
    const rows = await this.db
      .selectFrom('contest_markets')
      .select(['market_id', 'up_count', 'down_count'])
      .where('contest_id', '=', contestId)
      .orderBy('position')
      .execute();
    return rows.map((r) => ({ ...r, market_id: int8ToNumber(r.market_id) }));
  }

  userIdByHandle(handle: string) {
    return this.db
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['handle']), '=', eb.fn('lower', [eb.val(handle)])))
      .executeTakeFirst();
  }

  async entriesOfUser(contestId: string, userId: string) {
    const rows = await this.db
      .selectFrom('contest_entries')
      .select(['id', 'entry_index', 'created_at_ms', 'score', 'pick_count', 'resolved_leg_count', 'resolved_win_count', 'payout', 'rank'])
      .where('user_id', '=', userId)
      .where('contest_id', '=', contestId)
      .orderBy('entry_index')
      .execute();
    return rows.map((r) => ({ ...parsePayout(r), created_at_ms: int8ToNumber(r.created_at_ms) }));
  }
}
