// GET /v1/u/{handle}/contests/{id}: a contest as seen on a user's profile, with the visibility rule of
// interface-spec section 3: for a contest configured hidden_while_betting_open, entries (and their picks) are
// listed only once now >= betting_closes_ms; before that `joined` alone tells whether the owner entered.
import type { Em } from '../../db/orm.js';
import { pgArray } from '../../db/sql.js';
import { NotFound } from '../errors.js';
import { loadPublicContest, picksVisible } from './board.js';
import { loadMarkets, loadScoreCounts, pickOutcome, type ContestMarketRecord, type EntryVisibility, type PublicContestRecord, type PickOutcome } from './records.js';
import { rankFromCounts, type Direction } from './scoring.js';

export interface ProfileEntry {
  entryIndex: number;
  createdAtMs: number;
  picks: Array<{ marketId: number; direction: Direction; outcome: PickOutcome }>;
  openLegCount: number;
  resolvedWinCount: number;
  payout: bigint | null;
  netPayout: bigint | null;
  rank: number | null;
}

export interface ProfileContest {
  contest: PublicContestRecord;
  markets: ContestMarketRecord[];
  owner: { joined: boolean; entryVisibility: EntryVisibility; entries: ProfileEntry[] };
}

export async function profileContest(em: Em, handle: string, contestId: string, nowMs = Date.now()): Promise<ProfileContest> {
  const contest = await loadPublicContest(em, contestId);
  const users = await em.execute<Array<{ id: string }>>('select id::text as id from users where lower(handle) = lower(?)', [handle]);
  if (!users[0]) throw new NotFound('USER_NOT_FOUND', `No user has the handle ${JSON.stringify(handle)}.`);
  const userId = users[0].id;
  const markets = await loadMarkets(em, contestId);
  const visible = picksVisible(contest, nowMs);
  const rows = await em.execute<Array<Record<string, unknown>>>(
    `select id::text as id, entry_index, created_at_ms::text as created_at_ms, score, pick_count, resolved_leg_count, resolved_win_count,
            payout::text as payout, rank from contest_entries where user_id = ? and contest_id = ? order by entry_index`,
    [userId, contestId],
  );
  const owner = { joined: rows.length > 0, entryVisibility: (visible ? 'visible' : 'hidden_while_betting_open') as EntryVisibility, entries: [] as ProfileEntry[] };
  if (!visible || !rows.length) return { contest, markets, owner };

  const byMarket = new Map(markets.map((m) => [m.marketId, m]));
  const picks = await em.execute<Array<{ entry_id: string; market_id: string; direction: Direction }>>(
    `select p.entry_id::text as entry_id, p.market_id::text as market_id, p.direction
       from contest_entry_picks p join contest_markets m on m.market_id = p.market_id
      where p.entry_id = any(?::uuid[]) order by m.position`,
    [pgArray(rows.map((r) => String(r.id)))],
  );
  const counts = await loadScoreCounts(em, contestId);
  for (const r of rows) {
    const payout = r.payout === null || r.payout === undefined ? null : BigInt(r.payout as string);
    owner.entries.push({
      entryIndex: Number(r.entry_index),
      createdAtMs: Number(r.created_at_ms),
      picks: picks
        .filter((p) => p.entry_id === r.id)
        .map((p) => ({ marketId: Number(p.market_id), direction: p.direction, outcome: pickOutcome(p.direction, byMarket.get(Number(p.market_id))!) })),
      openLegCount: Number(r.pick_count) - Number(r.resolved_leg_count),
      resolvedWinCount: Number(r.resolved_win_count),
      payout,
      netPayout: payout === null ? null : payout - contest.betAmount,
      rank: r.rank !== null && r.rank !== undefined ? Number(r.rank) : contest.status === 'voided' ? null : rankFromCounts(counts, Number(r.score)),
    });
  }
  return { contest, markets, owner };
}
