// GET /v1/u/{handle}/contests/{id}: a contest as seen on a user's profile, with the visibility rule of
// spec/openapi.yaml (the profile view of a contest): for a contest configured hidden_while_betting_open, entries (and their picks) are
// listed only once now >= betting_closes_ms; before that `joined` alone tells whether the owner entered.
import type { Em } from '../../db/orm.js';
import { NotFound } from '../errors.js';
import { loadPublicContest, picksVisible } from './board.js';
import {
  loadMarkets,
  loadScoreCounts,
  pickOutcome,
  type ContestMarketRecord,
  type EntryVisibility,
  type PublicContestRecord,
  type PickOutcome,
} from './records.js';
import { rankFromCounts, type Direction } from './scoring.js';
import { repos } from '../../db/repos.js';

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
  const boards = repos(em).contestBoards;
  const user = await boards.userIdByHandle(handle);
  if (!user) throw new NotFound('USER_NOT_FOUND', `No user has the handle ${JSON.stringify(handle)}.`);
  const userId = user.id;
  const markets = await loadMarkets(em, contestId);
  const visible = picksVisible(contest, nowMs);
  const rows = await boards.entriesOfUser(contestId, userId);
  const owner = {
    joined: rows.length > 0,
    entryVisibility: (visible ? 'visible' : 'hidden_while_betting_open') as EntryVisibility,
    entries: [] as ProfileEntry[],
  };
  if (!visible || !rows.length) return { contest, markets, owner };

  const byMarket = new Map(markets.map((m) => [m.marketId, m]));
  const picks = await repos(em).contests.picksOf(rows.map((r) => r.id));
  const counts = await loadScoreCounts(em, contestId);
  for (const r of rows) {
    const payout = r.payout;
    owner.entries.push({
      entryIndex: r.entry_index,
      createdAtMs: r.created_at_ms,
      picks: picks
        .filter((p) => p.entry_id === r.id)
        .map((p) => ({
          marketId: p.market_id,
          direction: p.direction,
          outcome: pickOutcome(p.direction, byMarket.get(p.market_id)!),
        })),
      openLegCount: r.pick_count - r.resolved_leg_count,
      resolvedWinCount: r.resolved_win_count,
      payout,
      netPayout: payout === null ? null : payout - contest.betAmount,
      rank: r.rank !== null ? r.rank : contest.status === 'voided' ? null : rankFromCounts(counts, r.score),
    });
  }
  return { contest, markets, owner };
}
