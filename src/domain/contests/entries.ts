// Entry submission (docs/getting-started.md, Contests). One database transaction holds the contest's row lock, so
// the cap, the per-user limit and the pick counters are checked and updated by one entry at a time per
// contest (20 concurrent requests for the last 3 places: exactly 3 succeed). The bet moves from available
// to reserved in the same transaction; an insufficient balance rolls everything back.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { entriesRepository } from '../../db/repositories/entries.repository.js';
import { db } from '../../db/schema.js';
import { Conflict, Unprocessable } from '../errors.js';
import { post } from '../ledger/ledger.js';
import { ENTRY_GAME_TYPES, loadContest, loadMarkets, type ContestMarketRecord, type ContestRecord } from './records.js';
import type { Direction } from './scoring.js';

export interface PickInput {
  marketId: number;
  direction: Direction;
}

export interface EntryRecord {
  contestId: string;
  entryIndex: number;
  createdAtMs: number;
  picks: PickInput[];
  entryId: string;
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
    if (seen.has(p.marketId)) d.push({ in: 'body', path: `/picks/${i}/market_id`, message: `market ${p.marketId} is picked more than once` });
    seen.add(p.marketId);
    if (!m) d.push({ in: 'body', path: `/picks/${i}/market_id`, message: `market ${p.marketId} is not a market of this contest` });
    else if (m.status !== 'OPEN') d.push({ in: 'body', path: `/picks/${i}/market_id`, message: `market ${p.marketId} is ${m.status}, not OPEN` });
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

const samePicks = (a: readonly PickInput[], b: readonly PickInput[]) => {
  const key = (ps: readonly PickInput[]) =>
    ps
      .map((p) => `${p.marketId}:${p.direction}`)
      .sort()
      .join(',');
  return key(a) === key(b);
};

/** The entry `userId` made with idempotency key `key`, if any (the unique index keeps it one). */
async function entryByKey(tx: Em, userId: string, key: string): Promise<EntryRecord | null> {
  const repo = entriesRepository(db(tx));
  const e = await repo.byKey(userId, key);
  if (!e) return null;
  const picks = await repo.picks(e.id);
  return {
    entryId: e.id,
    contestId: e.contest_id,
    entryIndex: e.entry_index,
    createdAtMs: e.created_at_ms,
    picks: picks.map((p) => ({ marketId: p.market_id, direction: p.direction })),
  };
}

/**
 * Inside the caller's transaction: submits one paid entry; the rules are checked in the order the spec
 * documents. With an idempotency key, the entry carries it under a unique index: an entry already made
 * with it is returned as it is (another contest or other picks: 409 IDEMPOTENCY_KEY_REUSED).
 */
export async function enterContest(
  tx: Em,
  userId: string,
  contestId: string,
  picks: PickInput[],
  key: string | null,
  nowMs = () => Date.now(),
): Promise<EntryRecord> {
  const earlier = key === null ? null : await entryByKey(tx, userId, key);
  if (earlier) {
    if (earlier.contestId !== contestId || !samePicks(earlier.picks, picks)) {
      throw new Conflict(
        'IDEMPOTENCY_KEY_REUSED',
        'this idempotency_key was already used with a different request body; use a new key for a new request',
      );
    }
    return earlier;
  }
  const c = await loadContest(tx, contestId, { forUpdate: true });
  const now = nowMs(); // read after the lock: a request that waited for it is judged at the time it runs
  if (now >= c.bettingClosesMs) throw new Conflict('BETTING_CLOSED', `Betting closed for this contest at ${c.bettingClosesMs} (betting_closes_ms).`);
  if (c.status !== 'open') throw new Conflict('ENTRY_NOT_OPEN', `This contest is ${c.status} and does not accept entries.`);
  if (c.entryOpensAtMs !== null && now < c.entryOpensAtMs) {
    throw new Conflict('ENTRY_NOT_OPEN', `This contest accepts entries from ${c.entryOpensAtMs} (entry_opens_at_ms).`);
  }
  if (c.entriesFilled >= c.entryCap) throw new Conflict('CONTEST_FULL', `This contest has reached its entry cap of ${c.entryCap}.`);
  const repo = entriesRepository(db(tx));
  const entryIndex = await repo.heldBy(contestId, userId);
  if (entryIndex >= c.maxEntriesPerUser) {
    throw new Conflict(
      'ENTRY_LIMIT_REACHED',
      `You already hold ${entryIndex} of the ${c.maxEntriesPerUser} entries allowed per user in this contest.`,
    );
  }
  if (!ENTRY_GAME_TYPES.includes(c.gameType)) {
    throw invalidPicks([{ in: 'body', path: '/picks', message: `${c.gameType} contests do not take entries through this route` }]);
  }
  const markets = await loadMarkets(tx, contestId);
  const problems = checkPicks(c, markets, picks, now);
  if (problems.length) throw invalidPicks(problems);

  const entryId = randomUUID();
  await post(tx, {
    kind: 'contest_entry',
    reference: entryId,
    entries: [
      { account: { userId, kind: 'user_available' }, amount: -c.betAmount },
      { account: { userId, kind: 'user_reserved' }, amount: c.betAmount },
    ],
  });
  await repo.insertEntry({ id: entryId, contestId, userId, entryIndex, createdAtMs: String(now), pickCount: picks.length, key });
  await repo.insertPicks(
    entryId,
    picks.map((p) => ({ marketId: String(p.marketId), direction: p.direction })),
  );
  const ups = picks.filter((p) => p.direction === 'up').map((p) => String(p.marketId));
  const downs = picks.filter((p) => p.direction === 'down').map((p) => String(p.marketId));
  await repo.countPicks(contestId, ups, downs);
  // A new entry has no resolved pick yet (only OPEN markets can be picked), so it starts at score 0.
  await repo.countEntry(contestId);
  return { contestId, entryIndex, createdAtMs: now, picks, entryId };
}

/** Whether `userId` holds an entry in each of `contestIds` (caller.joined). */
export async function joinedContests(em: Em, userId: string, contestIds: readonly string[]): Promise<Set<string>> {
  if (!contestIds.length) return new Set();
  return new Set(await entriesRepository(db(em)).joined(userId, contestIds));
}
