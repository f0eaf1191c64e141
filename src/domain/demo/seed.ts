// Demo data for the embedded development default (issue 16): a fresh `npm start` shows a lobby with an
// open contest, a hidden-while-betting contest and a resolved contest, each with entries from six demo
// users and a leaderboard. Everything is marked as demo data: titles start with "Demo:", users' handles
// with "demo_", and their money came in through the demo settlement adapter as ordinary deposits.
//
// Exactly once: the marker row `service_keys('demo_seed_v1')` is inserted in the same transaction as the
// data, `on conflict do nothing`. A second start (or two starts racing) finds the marker and seeds nothing;
// a start that dies half way leaves no marker and no data.
import { createHash, randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { Em } from '../../db/orm.js';
import type { Logger } from '../../logger.js';
import { createContest, type NewContest } from '../contests/create.js';
import { enterContest, type PickInput } from '../contests/entries.js';
import { loadMarkets } from '../contests/records.js';
import { resolveContest, resolveMarket } from '../contests/resolution.js';
import type { Direction } from '../contests/scoring.js';
import { findOrCreateWalletUser, setHandle } from '../identity/users.js';
import { openDeposit, settleOperation } from '../money/operations.js';
import type { SettlementAdapter } from '../settlement/adapter.js';
import { repos } from '../../db/repos.js';
import { inTransaction } from '../../db/unit-of-work.js';

export const DEMO_SEED_MARKER = 'demo_seed_v1';
export const DEMO_TITLE_PREFIX = 'Demo: ';
export const DEMO_HANDLES = ['demo_alice', 'demo_bob', 'demo_carol', 'demo_dave', 'demo_erin', 'demo_frank'] as const;

const USDC = 1_000_000n;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A deterministic demo wallet (no key is known for it: never send real funds). */
export const demoWallet = (handle: string) =>
  getAddress(`0x${createHash('sha256').update(`crfq demo user:${handle}`).digest('hex').slice(0, 40)}`);

export interface DemoSeedResult {
  seeded: boolean;
  contestIds: string[];
}

function demoContest(title: string, over: Partial<NewContest> & Pick<NewContest, 'bettingClosesMs'>): NewContest {
  return {
    title: `${DEMO_TITLE_PREFIX}${title}`,
    category: 'culture',
    gameType: 'lineups',
    description: 'Demo data seeded by the embedded development default (never in production). Enter it with any session.',
    betAmount: 5n * USDC,
    prizePool: 50n * USDC,
    entryCap: 100,
    maxEntriesPerUser: 1,
    betType: { kind: 'num_bets', value: 3 },
    winningSplitBps: [6000, 3000, 1000],
    entryVisibility: 'visible',
    markets: [
      { category: 'culture', name: 'Will the demo film top the box office this weekend?' },
      { category: 'culture', name: 'Will the demo album debut at number one?' },
      { category: 'culture', name: 'Will the demo show be renewed for a second season?' },
      { category: 'culture', name: 'Will the demo streamer pass 1M followers this month?' },
    ],
    ...over,
  };
}

/** Picks three of the four markets; each demo user gets a different mix so the leaderboard has ranks. */
function picksFor(userIndex: number, marketIds: number[]): PickInput[] {
  return marketIds.slice(0, 3).map((marketId, i) => ({ marketId, direction: ((userIndex >> i) & 1 ? 'down' : 'up') as Direction }));
}

/** Seeds the demo data once; returns `seeded: false` when an earlier start already did. */
export async function seedDemoData(em: Em, settlement: SettlementAdapter, nowMs = Date.now()): Promise<DemoSeedResult> {
  return inTransaction(em, async (tx) => {
    if (!(await repos(tx).demo.claimMarker(DEMO_SEED_MARKER, randomBytes(16)))) return { seeded: false, contestIds: [] };
    const users: string[] = [];
    for (const handle of DEMO_HANDLES) {
      const user = await findOrCreateWalletUser(tx, demoWallet(handle));
      await setHandle(tx, user.id, handle);
      const deposit = await openDeposit(tx, user.id, 100n * USDC, null);
      const settled = await settleOperation(tx, settlement, deposit.id);
      if (settled !== 'settled') throw new Error(`demo seed: the deposit of ${handle} was not settled (${settled})`);
      users.push(user.id);
    }

    // Resolved: created three days ago, betting closed two days ago, resolved yesterday.
    const pastStart = nowMs - 3 * DAY;
    const resolved = await createContest(tx, demoContest('Culture week (resolved)', { bettingClosesMs: nowMs - 2 * DAY }), pastStart);
    const open = await createContest(tx, demoContest('Culture weekend (open)', { bettingClosesMs: nowMs + 7 * DAY }), nowMs);
    const hidden = await createContest(
      tx,
      demoContest('Culture month (picks hidden while betting is open)', {
        bettingClosesMs: nowMs + 14 * DAY,
        entryVisibility: 'hidden_while_betting_open',
        gameType: 'outcast',
      }),
      nowMs,
    );
    for (const [contestId, at] of [
      [resolved, pastStart + HOUR],
      [open, nowMs],
      [hidden, nowMs],
    ] as const) {
      const marketIds = (await loadMarkets(tx, contestId)).map((m) => m.marketId);
      for (const [i, userId] of users.entries()) await enterContest(tx, userId, contestId, picksFor(i, marketIds), null, () => at);
    }
    const resolvedMarkets = await loadMarkets(tx, resolved);
    for (const [i, m] of resolvedMarkets.entries())
      await resolveMarket(tx, m.marketId, i === 3 ? 'VOID' : i % 2 ? 'NO' : 'YES', nowMs - DAY);
    const outcome = await resolveContest(tx, resolved, nowMs - DAY);
    if (outcome !== 'resolved') throw new Error(`demo seed: the resolved demo contest ended ${outcome}`);
    return { seeded: true, contestIds: [open, hidden, resolved] };
  });
}

export interface DemoSeedSettings {
  nodeEnv: 'development' | 'test' | 'production';
  deployment: 'embedded' | 'postgres' | 'production';
  demoData: boolean;
  settlementMode: 'demo' | 'onchain';
}

/** Demo data only on the embedded development default (the database is the newcomer's own), DEMO_DATA on, and demo settlement (its money is play money). */
export const demoSeedAllowed = (s: DemoSeedSettings) =>
  s.demoData && s.nodeEnv === 'development' && s.deployment === 'embedded' && s.settlementMode === 'demo';

/** At start-up: seeds when allowed and not yet done, and says what it did. A failure is logged, never fatal. */
export async function seedDemoOnStart(
  em: Em,
  settlement: SettlementAdapter,
  s: DemoSeedSettings,
  log: Logger,
): Promise<DemoSeedResult | null> {
  if (!demoSeedAllowed(s)) return null;
  try {
    const r = await seedDemoData(em, settlement);
    if (r.seeded) {
      log.info(
        { contest_ids: r.contestIds, users: DEMO_HANDLES },
        'demo data seeded (embedded development default; DEMO_DATA=false starts empty): 3 contests titled "Demo: ..." and 6 demo_* users',
      );
    }
    return r;
  } catch (err) {
    log.error({ err }, 'demo data could not be seeded; the service runs without it');
    return null;
  }
}
