// Contest entries (src/domain/contests/entries.ts): the entry, its picks and the counters an entry moves,
// all in the caller's transaction, which holds the contest's row lock.
import { sql } from 'kysely';
import { int8ToNumber } from '../int8.js';
import type { Db } from '../schema.js';
import { anyOf } from '../sql.js';
import type { Direction } from '../vocabulary.js';

export class EntriesRepository {
  constructor(private readonly db: Db) {}

  /** The entry `userId` made with idempotency key `key` (the unique index keeps it one). */
  /** The entry made under this key (its creation time as epoch ms), if any. */
  async byKey(userId: string, key: string) {
    const row = await this.db
      .selectFrom('contest_entries')
      .select(['id', 'contest_id', 'entry_index', 'created_at_ms'])
      .where('user_id', '=', userId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    return row && { ...row, created_at_ms: int8ToNumber(row.created_at_ms) };
  }

  /** The entry's picks (market ids as numbers). */
  async picks(entryId: string) {
    const rows = await this.db
      .selectFrom('contest_entry_picks')
      .select(['market_id', 'direction'])
      .where('entry_id', '=', entryId)
      .execute();
    return rows.map((r) => ({ market_id: int8ToNumber(r.market_id), direction: r.direction }));
  }

  /** How many entries the user holds in the contest. */
  async heldBy(contestId: string, userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('contest_entries')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('contest_id', '=', contestId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async insertEntry(e: {
    id: string;
    contestId: string;
    userId: string;
    entryIndex: number;
    createdAtMs: string;
    pickCount: number;
    key: string | null;
  }) {
    await this.db
      .insertInto('contest_entries')
      .values({
        id: e.id,
        contest_id: e.contestId,
        user_id: e.userId,
        entry_index: e.entryIndex,
        created_at_ms: e.createdAtMs,
        pick_count: e.pickCount,
        idempotency_key: e.key,
      })
      .execute();
  }

  async insertPicks(entryId: string, picks: ReadonlyArray<{ marketId: string; direction: Direction }>): Promise<void> {
    await this.db
      .insertInto('contest_entry_picks')
      .values(picks.map((p) => ({ entry_id: entryId, market_id: p.marketId, direction: p.direction })))
      .execute();
  }

  /** Adds one to up_count of the `ups` markets and to down_count of the `downs` markets, in one statement. */
  async countPicks(contestId: string, ups: readonly string[], downs: readonly string[]): Promise<void> {
    await this.db
      .updateTable('contest_markets')
      .set((eb) => ({
        up_count: sql<number>`${eb.ref('up_count')} + (market_id = ${anyOf(ups, 'bigint')})::int`,
        down_count: sql<number>`${eb.ref('down_count')} + (market_id = ${anyOf(downs, 'bigint')})::int`,
      }))
      .where('contest_id', '=', contestId)
      .where('market_id', '=', anyOf([...ups, ...downs], 'bigint'))
      .execute();
  }

  /** One more entry filled, and one more entry at score 0 (a new entry has no resolved pick yet). */
  async countEntry(contestId: string): Promise<void> {
    await this.db
      .updateTable('contests')
      .set((eb) => ({ entries_filled: eb('entries_filled', '+', 1) }))
      .where('id', '=', contestId)
      .execute();
    await this.db
      .insertInto('contest_score_counts')
      .values({ contest_id: contestId, score: 0, entries: 1 })
      .onConflict((oc) =>
        oc.columns(['contest_id', 'score']).doUpdateSet((eb) => ({ entries: eb('contest_score_counts.entries', '+', 1) })),
      )
      .execute();
  }

  /** The contests among `contestIds` where the user holds an entry. */
  async joined(userId: string, contestIds: readonly string[]): Promise<string[]> {
    const rows = await this.db
      .selectFrom('contest_entries')
      .select('contest_id')
      .distinct()
      .where('user_id', '=', userId)
      .where('contest_id', '=', anyOf(contestIds, 'uuid'))
      .execute();
    return rows.map((r) => r.contest_id);
  }
}
