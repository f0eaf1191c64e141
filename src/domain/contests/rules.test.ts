// Pure contest rules: pick validation (422 INVALID_PICKS details), creation checks, pick outcomes, cursors.
import { describe, expect, it } from 'vitest';
import { checkNewContest, type NewContest } from './create.js';
import { checkPicks } from './entries.js';
import { decodeCursor, encodeCursor, clampLimit } from './lobby.js';
import { pickOutcome, type ContestMarketRecord } from './records.js';

const market = (marketId: number, category: string, over: Partial<ContestMarketRecord> = {}): ContestMarketRecord => ({
  marketId,
  contestId: 'c',
  position: marketId,
  category,
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

describe('checkPicks', () => {
  const markets = [
    market(1, 'words'),
    market(2, 'words'),
    market(3, 'people'),
    market(4, 'people', { status: 'RESOLVED', outcome: 'YES' }),
    market(5, 'people', { bettingClosesAtMs: 1000 }),
  ];
  const numBets = { betType: { kind: 'num_bets' as const, value: 2 } };
  const perCategory = { betType: { kind: 'bets_per_category' as const, value: 1 } };

  it('accepts exactly value picks on open markets of the contest', () => {
    expect(
      checkPicks(
        numBets,
        markets,
        [
          { marketId: 1, direction: 'up' },
          { marketId: 3, direction: 'down' },
        ],
        0,
      ),
    ).toEqual([]);
    expect(
      checkPicks(
        perCategory,
        markets,
        [
          { marketId: 2, direction: 'up' },
          { marketId: 3, direction: 'down' },
        ],
        0,
      ),
    ).toEqual([]);
  });

  it('names every problem with its path', () => {
    const d = checkPicks(
      numBets,
      markets,
      [
        { marketId: 1, direction: 'up' },
        { marketId: 1, direction: 'down' },
        { marketId: 99, direction: 'up' },
        { marketId: 4, direction: 'up' },
      ],
      0,
    );
    expect(d.map((x) => x.path)).toEqual(['/picks/1/market_id', '/picks/2/market_id', '/picks/3/market_id', '/picks']);
    expect(d.map((x) => x.message).join('|')).toMatch(
      /more than once.*not a market of this contest.*RESOLVED, not OPEN.*exactly 2 picks, got 4/,
    );
  });

  it('refuses a market whose own betting close has passed', () => {
    expect(
      checkPicks(
        numBets,
        markets,
        [
          { marketId: 1, direction: 'up' },
          { marketId: 5, direction: 'up' },
        ],
        999,
      ),
    ).toEqual([]);
    expect(
      checkPicks(
        numBets,
        markets,
        [
          { marketId: 1, direction: 'up' },
          { marketId: 5, direction: 'up' },
        ],
        1000,
      )[0]!.message,
    ).toMatch(/closed at 1000/);
  });

  it('bets_per_category counts every category of the contest, including one with no pick', () => {
    const d = checkPicks(
      perCategory,
      markets,
      [
        { marketId: 1, direction: 'up' },
        { marketId: 2, direction: 'up' },
      ],
      0,
    );
    expect(d.map((x) => x.message)).toEqual([
      'expected exactly 1 picks in category "words", got 2',
      'expected exactly 1 picks in category "people", got 0',
    ]);
  });
});

describe('checkNewContest', () => {
  const base: NewContest = {
    title: 't',
    category: 'sports',
    gameType: 'lineups',
    betAmount: 1_000n,
    prizePool: 0n,
    entryCap: 10,
    maxEntriesPerUser: 1,
    bettingClosesMs: 10_000,
    betType: { kind: 'num_bets', value: 1 },
    winningSplitBps: [10_000],
    entryVisibility: 'hidden_while_betting_open',
    markets: [{ category: 'a', name: 'x' }],
  };

  it('accepts a consistent contest', () => expect(checkNewContest(base)).toEqual([]));

  it('lists every broken rule', () => {
    const d = checkNewContest({
      ...base,
      winningSplitBps: [9000, 2000],
      entryOpensAtMs: 10_000,
      liveEndsAtMs: 9_999,
      betType: { kind: 'num_bets', value: 2 },
      betAmount: 2n ** 50n,
    });
    expect(d.map((x) => x.path)).toEqual(['/winning_split_bps', '/entry_opens_at_ms', '/live_ends_at_ms', '/entry_cap', '/bet_type/value']);
  });

  it('bets_per_category needs enough markets in every category', () => {
    const d = checkNewContest({
      ...base,
      betType: { kind: 'bets_per_category', value: 2 },
      markets: [
        { category: 'a', name: '1' },
        { category: 'a', name: '2' },
        { category: 'b', name: '3' },
      ],
    });
    expect(d[0]!.message).toMatch(/too few in: b$/);
  });
});

describe('pickOutcome', () => {
  it('follows the market: up wins on YES, down on NO, VOID voids, OPEN is pending', () => {
    expect(pickOutcome('up', { status: 'OPEN', outcome: null })).toBe('pending');
    expect(pickOutcome('up', { status: 'RESOLVED', outcome: 'YES' })).toBe('won');
    expect(pickOutcome('down', { status: 'RESOLVED', outcome: 'YES' })).toBe('lost');
    expect(pickOutcome('down', { status: 'RESOLVED', outcome: 'NO' })).toBe('won');
    expect(pickOutcome('up', { status: 'VOIDED', outcome: null })).toBe('voided');
  });
});

describe('lobby cursor and limits', () => {
  const id = '3f6c2a9e-8b1d-4c7a-9e2f-5a1b7c3d9e01';
  const key = Buffer.alloc(32, 7);
  const otherKey = Buffer.alloc(32, 8);
  it('round-trips and is bound to its filters', () => {
    const c = encodeCursor(key, { c: 1767225600000, i: id, s: 'open', g: null });
    expect(decodeCursor(key, c, { status: 'open' })).toEqual({ c: 1767225600000, i: id, s: 'open', g: null });
    expect(() => decodeCursor(key, c, {})).toThrow(/other filters/);
    expect(() => decodeCursor(key, c, { status: 'open', category: 'sports' })).toThrow(/other filters/);
  });

  it('refuses anything it did not produce: garbage, a forged or edited payload, another key', () => {
    const good = encodeCursor(key, { c: 1, i: id, s: null, g: null });
    const [payload, mac] = good.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ c: 2, i: id, s: null, g: null })).toString('base64url');
    for (const bad of [
      '',
      'abc',
      '!!',
      payload,
      `${forged}.${mac}`,
      encodeCursor(otherKey, { c: 1, i: id, s: null, g: null }),
      encodeCursor(key, { c: 1.5, i: id, s: null, g: null }),
      encodeCursor(key, { c: 1, i: 'nope', s: null, g: null }),
    ]) {
      expect(() => decodeCursor(key, bad, {}), bad).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR', status: 400 }));
    }
  });

  it('clamps limits instead of rejecting them', () => {
    expect(clampLimit(undefined, 20, 50)).toBe(20);
    expect(clampLimit(0, 20, 50)).toBe(1);
    expect(clampLimit(-5, 20, 50)).toBe(1);
    expect(clampLimit(51, 20, 50)).toBe(50);
  });
});
