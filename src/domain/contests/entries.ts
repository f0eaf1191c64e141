// Entry submission (docs/getting-started.md, Contests). One database transaction holds the contest's row lock, so
// the cap, the per-user limit and the pick counters are checked and updated by one entry at a time per
// contest (20 concurrent requests for the last 3 places: exactly 3 succeed). The bet moves from available
// to reserved in the same transaction; an insufficient balance rolls everything back. Each entry reads under
// the lock, the pure plan decides (src/domain/contests/entry-plan.ts), then the repository writes; the contest
// lifecycle (src/trading/contest-lifecycle.ts) publishes after the commit.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import type { Tx } from '../../db/unit-of-work.js';
import { Conflict } from '../errors.js';
import { post } from '../ledger/ledger.js';
import { checkPicks, planEntry, type PickInput } from './entry-plan.js';
import { loadContest, loadMarkets } from './records.js';
import { repos } from '../../db/repos.js';

export { checkPicks, type PickInput };

export interface EntryRecord {
  contestId: string;
  entryIndex: number;
  createdAtMs: number;
  picks: PickInput[];
  entryId: string;
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
  const repo = repos(tx).entries;
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
  tx: Tx,
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
  // Read under the contest's row lock, then the pure decision (entry-plan.ts), then the writes.
  const c = await loadContest(tx, contestId, { forUpdate: true });
  const now = nowMs(); // read after the lock: a request that waited for it is judged at the time it runs
  const repo = repos(tx).entries;
  const held = await repo.heldBy(contestId, userId);
  const markets = await loadMarkets(tx, contestId);
  const entryId = randomUUID();
  const plan = planEntry({ contest: c, held, markets, userId, picks, nowMs: now, entryId });
  const { entryIndex } = plan;
  await post(tx, plan.posting);
  await repo.insertEntry({ id: entryId, contestId, userId, entryIndex, createdAtMs: String(now), pickCount: picks.length, key });
  await repo.insertPicks(
    entryId,
    picks.map((p) => ({ marketId: String(p.marketId), direction: p.direction })),
  );
  await repo.countPicks(contestId, plan.ups, plan.downs);
  // A new entry has no resolved pick yet (only OPEN markets can be picked), so it starts at score 0.
  await repo.countEntry(contestId);
  return { contestId, entryIndex, createdAtMs: now, picks, entryId };
}

/** Whether `userId` holds an entry in each of `contestIds` (caller.joined). */
export async function joinedContests(em: Em, userId: string, contestIds: readonly string[]): Promise<Set<string>> {
  if (!contestIds.length) return new Set();
  return new Set(await repos(em).entries.joined(userId, contestIds));
}
