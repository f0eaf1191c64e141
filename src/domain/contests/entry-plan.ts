// The entry's decision (docs/getting-started.md, Contests), pure: given what enterContest read under the
// contest's row lock (src/domain/contests/entries.ts), either the rejection the spec documents, checked in its
// order, or what to write: the bet's move from available to reserved, the entry, its picks and the counters.
// The contest lifecycle (src/trading/contest-lifecycle.ts) publishes `contests.changed` once it has committed.
import { Conflict, Unprocessable } from '../errors.js';
import type { Posting } from '../ledger/ledger.js';
import { ENTRY_GAME_TYPES, type ContestMarketRecord, type ContestRecord } from './records.js';
import type { Direction } from './scoring.js';

export interface PickInput {
  marketId: number;
  direction: Direction;
}

type Detail = { in: 'body'; path: string; message: string };

const invalidPicks = (details: Detail[]) => {
  const listed = details
    .slice(0, 3)
    .map((d) => d.message)
    .join('; ');
  const more = details.length > 3 ? ` (and ${details.length - 3} more)` : '';
  return new Unprocessable('INVALID_PICKS', `The picks do not satisfy the contest rules: ${listed}${more}.`, details);
};

/** Pure check of the picks against the contest's bet_type and markets (422 INVALID_PICKS details). */
export function checkPicks(
  contest: Pick<ContestRecord, 'betType'>,
  markets: readonly ContestMarketRecord[],
  picks: readonly PickInput[],
  nowMs: number,
): Detail[] {
  const d: Detail[] = [];
  const byId = new Map(markets.map((m) => [m.marketId, m]));
  const seen = new Set<number>();
  picks.forEach((p, i) => {
    const m = byId.get(p.marketId);
    if (seen.has(p.marketId))
      d.push({ in: 'body', path: `/picks/${i}/market_id`, message: `market ${p.marketId} is picked more than once` });
    seen.add(p.marketId);
    if (!m) d.push({ in: 'body', path: `/picks/${i}/market_id`, message: `market ${p.marketId} is not a market of this contest` });
    else if (m.status !== 'OPEN')
      d.push({ in: 'body', path: `/picks/${i}/market_id`, message: `market ${p.marketId} is ${m.status}, not OPEN` });
    else if (m.bettingClosesAtMs !== null && nowMs >= m.bettingClosesAtMs) {
      d.push({ in: 'body', path: `/picks/${i}/market_id`, message: `betting on market ${p.marketId} closed at ${m.bettingClosesAtMs}` });
    }
  });
  const { kind, value } = contest.betType;
  if (kind === 'num_bets' && picks.length !== value)
    d.push({ in: 'body', path: '/picks', message: `expected exactly ${value} picks, got ${picks.length}` });
  if (kind === 'bets_per_category') {
    const counts = new Map<string, number>();
    for (const m of markets) counts.set(m.category, 0);
    for (const p of picks) {
      const m = byId.get(p.marketId);
      if (m) counts.set(m.category, (counts.get(m.category) ?? 0) + 1);
    }
    for (const [cat, n] of counts) {
      if (n !== value)
        d.push({ in: 'body', path: '/picks', message: `expected exactly ${value} picks in category ${JSON.stringify(cat)}, got ${n}` });
    }
  }
  return d;
}

/** What enterContest read, under the contest's row lock. */
export interface EntryFacts {
  contest: ContestRecord;
  /** The entries the user already holds in the contest. */
  held: number;
  markets: readonly ContestMarketRecord[];
  userId: string;
  picks: readonly PickInput[];
  /** Read after the lock: a request that waited for it is judged at the time it runs. */
  nowMs: number;
  /** The new entry's id (the posting's reference). */
  entryId: string;
}

export interface EntryPlan {
  /** The bet, from the user's available balance to reserved. */
  posting: Posting;
  /** The entry's index among the user's entries in the contest (0 for the first). */
  entryIndex: number;
  /** The markets picked up and down (the pick counters). */
  ups: string[];
  downs: string[];
}

/** The entry's rules in the order the spec documents: a Conflict or Unprocessable, or the writes. */
export function planEntry(f: EntryFacts): EntryPlan {
  const { contest: c, nowMs: now, picks } = f;
  if (now >= c.bettingClosesMs)
    throw new Conflict('BETTING_CLOSED', `Betting closed for this contest at ${c.bettingClosesMs} (betting_closes_ms).`);
  if (c.status !== 'open') throw new Conflict('ENTRY_NOT_OPEN', `This contest is ${c.status} and does not accept entries.`);
  if (c.entryOpensAtMs !== null && now < c.entryOpensAtMs) {
    throw new Conflict('ENTRY_NOT_OPEN', `This contest accepts entries from ${c.entryOpensAtMs} (entry_opens_at_ms).`);
  }
  if (c.entriesFilled >= c.entryCap) throw new Conflict('CONTEST_FULL', `This contest has reached its entry cap of ${c.entryCap}.`);
  if (f.held >= c.maxEntriesPerUser) {
    throw new Conflict(
      'ENTRY_LIMIT_REACHED',
      `You already hold ${f.held} of the ${c.maxEntriesPerUser} entries allowed per user in this contest.`,
    );
  }
  if (!ENTRY_GAME_TYPES.includes(c.gameType)) {
    throw invalidPicks([{ in: 'body', path: '/picks', message: `${c.gameType} contests do not take entries through this route` }]);
  }
  const problems = checkPicks(c, f.markets, picks, now);
  if (problems.length) throw invalidPicks(problems);
  const posting: Posting = {
    kind: 'contest_entry',
    reference: f.entryId,
    entries: [
      { account: { userId: f.userId, kind: 'user_available' }, amount: -c.betAmount },
      { account: { userId: f.userId, kind: 'user_reserved' }, amount: c.betAmount },
    ],
  };
  const ids = (d: Direction) => picks.filter((p) => p.direction === d).map((p) => String(p.marketId));
  return { posting, entryIndex: f.held, ups: ids('up'), downs: ids('down') };
}
