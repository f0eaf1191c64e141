// The contest lifecycle's pure decisions (src/domain/contests/entry-plan.ts, resolution-plan.ts): an entry's
// rules in the spec's order and its posting; a void's refund; a resolution's outcome, payout posting and
// payouts. Every posting balances (validatePosting), and a contest no longer open pays nothing.
import { describe, expect, it } from 'vitest';
import { validatePosting, type Posting } from '../ledger/ledger.js';
import { planEntry, type EntryFacts } from './entry-plan.js';
import type { ContestMarketRecord, ContestRecord } from './records.js';
import { planResolution, planVoid, type SettlingEntry } from './resolution-plan.js';

const contest = (over: Partial<ContestRecord> = {}): ContestRecord => ({
  id: 'c1',
  title: 't',
  category: 'culture',
  gameType: 'lineups',
  description: null,
  status: 'open',
  betAmount: 10n,
  prizePool: 5n,
  entryCap: 10,
  maxEntriesPerUser: 2,
  entriesFilled: 0,
  openMarketCount: 2,
  entryOpensAtMs: null,
  bettingClosesMs: 1_000,
  liveEndsAtMs: null,
  betType: { kind: 'num_bets', value: 2 },
  winningSplitBps: [6_000, 3_000],
  imageId: null,
  entryVisibility: 'visible',
  createdAtMs: 0,
  resolvedAtMs: null,
  ...over,
});

const market = (marketId: number, over: Partial<ContestMarketRecord> = {}): ContestMarketRecord => ({
  marketId,
  contestId: 'c1',
  position: marketId,
  category: 'words',
  name: `m${marketId}`,
  description: null,
  status: 'OPEN',
  outcome: null,
  sourceKind: null,
  sourceEventId: null,
  sourceMarketId: null,
  bettingClosesAtMs: null,
  liveEndsAtMs: null,
  resolutionTimeMs: null,
  upCount: 0,
  downCount: 0,
  ...over,
});

const facts = (over: Partial<EntryFacts> = {}): EntryFacts => ({
  contest: contest(),
  held: 0,
  markets: [market(1), market(2)],
  userId: 'u1',
  picks: [
    { marketId: 1, direction: 'up' },
    { marketId: 2, direction: 'down' },
  ],
  nowMs: 500,
  entryId: 'e1',
  ...over,
});

const code = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return 'none';
};

/** Each account's net movement in a posting. */
const net = (p: Posting) => {
  const m = new Map<string, bigint>();
  for (const e of p.entries) {
    const k = 'userId' in e.account ? `${e.account.userId}:${e.account.kind}` : 'pot' in e.account ? 'pot' : e.account.system;
    m.set(k, (m.get(k) ?? 0n) + e.amount);
  }
  return Object.fromEntries([...m].filter(([, v]) => v !== 0n));
};

describe('planEntry', () => {
  it('moves the bet from available to reserved, and counts the picks up and down', () => {
    const plan = planEntry(facts({ held: 1 }));
    validatePosting(plan.posting);
    expect(plan.posting.kind).toBe('contest_entry');
    expect(plan.posting.reference).toBe('e1');
    expect(net(plan.posting)).toEqual({ 'u1:user_available': -10n, 'u1:user_reserved': 10n });
    expect(plan).toMatchObject({ entryIndex: 1, ups: ['1'], downs: ['2'] });
  });

  it('refuses in the order the spec documents: closed, not open, full, limit, game type, picks', () => {
    const everythingWrong = facts({
      contest: contest({ status: 'voided', entriesFilled: 10, gameType: 'survivor' }),
      held: 2,
      picks: [],
      nowMs: 1_000,
    });
    expect(code(() => planEntry(everythingWrong))).toBe('BETTING_CLOSED');
    const stillOpen = { ...everythingWrong, nowMs: 999 };
    expect(code(() => planEntry(stillOpen))).toBe('ENTRY_NOT_OPEN');
    const notYet = { ...stillOpen, contest: { ...stillOpen.contest, status: 'open' as const, entryOpensAtMs: 1_000 } };
    expect(code(() => planEntry(notYet))).toBe('ENTRY_NOT_OPEN');
    const full = { ...notYet, contest: { ...notYet.contest, entryOpensAtMs: 999 } };
    expect(code(() => planEntry(full))).toBe('CONTEST_FULL');
    const limit = { ...full, contest: { ...full.contest, entriesFilled: 9 } };
    expect(code(() => planEntry(limit))).toBe('ENTRY_LIMIT_REACHED');
    const survivor = { ...limit, held: 1 };
    expect(code(() => planEntry(survivor))).toBe('INVALID_PICKS');
    expect(code(() => planEntry({ ...survivor, contest: { ...survivor.contest, gameType: 'lineups' } }))).toBe('INVALID_PICKS');
    expect(code(() => planEntry({ ...survivor, contest: { ...survivor.contest, gameType: 'lineups' }, picks: facts().picks }))).toBe(
      'none',
    );
  });
});

const entry = (id: string, userId: string, score: number, createdAtMs = 0): SettlingEntry => ({
  id,
  user_id: userId,
  score,
  created_at_ms: createdAtMs,
});

describe('planVoid', () => {
  it('refunds every user its bets, one posting for the contest', () => {
    const { refund } = planVoid(contest(), [entry('e1', 'u1', 0), entry('e2', 'u1', 0), entry('e3', 'u2', 0)]);
    validatePosting(refund!);
    expect(refund!.kind).toBe('contest_refund');
    expect(net(refund!)).toEqual({
      'u1:user_reserved': -20n,
      'u1:user_available': 20n,
      'u2:user_reserved': -10n,
      'u2:user_available': 10n,
    });
    expect(planVoid(contest(), [])).toEqual({ refund: null });
  });

  it('is 409 CONTEST_ALREADY_SETTLED for a contest no longer open (nothing refunded twice)', () => {
    expect(code(() => planVoid(contest({ status: 'resolved' }), [entry('e1', 'u1', 0)]))).toBe('CONTEST_ALREADY_SETTLED');
    expect(code(() => planVoid(contest({ status: 'voided' }), []))).toBe('CONTEST_ALREADY_SETTLED');
  });
});

describe('planResolution', () => {
  const settled = [{ status: 'RESOLVED' as const }, { status: 'VOIDED' as const }];

  it('does nothing for a contest no longer open, or with a market still OPEN', () => {
    expect(planResolution(contest({ status: 'resolved' }), settled, [entry('e1', 'u1', 1)])).toEqual({ kind: 'already_settled' });
    expect(planResolution(contest({ status: 'voided' }), settled, [])).toEqual({ kind: 'already_settled' });
    expect(planResolution(contest(), [{ status: 'OPEN' }, { status: 'RESOLVED' }], [entry('e1', 'u1', 1)])).toEqual({ kind: 'not_ready' });
  });

  it('voids and refunds when every market was voided', () => {
    const plan = planResolution(contest(), [{ status: 'VOIDED' }, { status: 'VOIDED' }], [entry('e1', 'u1', 0)]);
    expect(plan.kind).toBe('voided');
    expect(net((plan as { refund: Posting }).refund)).toEqual({ 'u1:user_reserved': -10n, 'u1:user_available': 10n });
  });

  it('pays the ranked entries from the pot (bets and prize pool), the remainder to the treasury', () => {
    // Pot 5 + 3 * 10 = 35: rank 1 (e2) gets 60% = 21; e1 and e3 tie at rank 2 and share positions 2 and 3
    // (30% + 0%: floor(10.5) = 10, 5 each); 4 left for the treasury.
    const plan = planResolution(contest(), settled, [entry('e1', 'u1', 1, 1), entry('e2', 'u2', 2, 2), entry('e3', 'u1', 1, 3)]);
    if (plan.kind !== 'resolved') throw new Error(plan.kind);
    validatePosting(plan.payout!);
    expect(plan.payout!.kind).toBe('contest_payout');
    expect(net(plan.payout!)).toEqual({
      'u1:user_reserved': -20n,
      'u2:user_reserved': -10n,
      treasury: -5n + 4n,
      'u2:user_available': 21n,
      'u1:user_available': 10n,
    });
    expect(plan.payouts).toEqual({ ids: ['e2', 'e1', 'e3'], amounts: [21n, 5n, 5n], ranks: [1, 2, 2] });
  });

  it('resolves a contest without entries with no posting', () => {
    expect(planResolution(contest(), settled, [])).toEqual({ kind: 'resolved', payout: null, payouts: null });
  });
});
