import { describe, expect, it } from 'vitest';
import { allocate, effectiveOddsBps, payoutFor, type AllocationInput, type QuoteCandidate } from './allocate.js';

const NOW = 1_767_225_600_000;
let seq = 0;
const quote = (oddsBps: number, maxFillMicros: bigint, extra: Partial<QuoteCandidate> = {}): QuoteCandidate => ({
  quoteId: `q${++seq}`,
  makerAddress: `0x${String(seq).padStart(40, '0')}`,
  oddsBps,
  maxFillMicros,
  validUntilMs: NOW + 1000,
  receivedAtMs: NOW - 100 + seq,
  ...extra,
});
const input = (quotes: QuoteCandidate[], over: Partial<AllocationInput> = {}): AllocationInput => ({
  stakeMicros: 10_000_000n,
  minOddsBps: 20_000,
  orderType: 'FOK',
  nowMs: NOW,
  maxPayoutMicros: 50_000_000_000n,
  minFillMicros: 10_000n,
  quotes,
  ...over,
});
const summary = (a: Awaited<ReturnType<typeof allocate>>) =>
  a.quotes.map((o) =>
    o.status === 'filled' ? `${o.quoteId}:filled:${o.fill.fillMicros}:${o.fill.liabilityMicros}` : `${o.quoteId}:${o.status}:${o.reason}`,
  );

describe('payout arithmetic', () => {
  it("payout = ceil(fill * odds / 10000), in the taker's favour; effective odds = floor(payout * 10000 / filled)", () => {
    expect(payoutFor(10_000_000n, 25_000)).toBe(25_000_000n);
    expect(payoutFor(3n, 15_000)).toBe(5n); // 4.5 -> 5
    expect(payoutFor(1n, 10_001)).toBe(2n); // liability 1, never 0
    expect(effectiveOddsBps(25_000_000n, 10_000_000n)).toBe(25_000);
    expect(effectiveOddsBps(7n, 3n)).toBe(23_333);
    expect(() => effectiveOddsBps(1n, 0n)).toThrow(RangeError);
  });
});

describe('allocate', () => {
  it('one maker covers a FOK order: the taker gets its odds, the maker reserves payout - stake', async () => {
    const a = quote(25_000, 20_000_000n);
    const r = await allocate(input([a]));
    expect(r).toMatchObject({
      status: 'filled',
      filledStakeMicros: 10_000_000n,
      payoutMicros: 25_000_000n,
      oddsBps: 25_000,
      releasedMicros: 0n,
    });
    expect(summary(r)).toEqual([`${a.quoteId}:filled:10000000:15000000`]);
  });

  it('best odds first across several makers; the rest of the stake goes to the next best; the others are outbid', async () => {
    const low = quote(21_000, 100_000_000n);
    const best = quote(30_000, 4_000_000n);
    const mid = quote(25_000, 5_000_000n);
    const r = await allocate(input([low, best, mid]));
    // 4 @ 3.0 = 12, 5 @ 2.5 = 12.5, 1 @ 2.1 = 2.1 -> 26.6 on 10 = 2.66
    expect(r).toMatchObject({ status: 'filled', filledStakeMicros: 10_000_000n, payoutMicros: 26_600_000n, oddsBps: 26_600 });
    expect(summary(r)).toEqual([
      `${low.quoteId}:filled:1000000:1100000`,
      `${best.quoteId}:filled:4000000:8000000`,
      `${mid.quoteId}:filled:5000000:7500000`,
    ]);
    const r2 = await allocate(input([low, best, mid, quote(20_000, 10_000n)]));
    expect(summary(r2)[3]).toMatch(/:not_filled:outbid$/);
  });

  it('FOK short of liquidity fills nothing and releases the whole stake; IOC fills what there is and releases the rest', async () => {
    const a = quote(25_000, 3_000_000n);
    const b = quote(22_000, 2_000_000n);
    const calls: string[] = [];
    const hooks = { hasCollateral: (q: QuoteCandidate) => (calls.push(q.quoteId), true) };
    const fok = await allocate(input([a, b]), hooks);
    expect(fok).toMatchObject({ status: 'expired', reason: 'insufficient_liquidity', releasedMicros: 10_000_000n });
    expect(summary(fok)).toEqual([`${a.quoteId}:not_filled:rfq_expired`, `${b.quoteId}:not_filled:rfq_expired`]);
    expect(calls).toEqual([]); // nothing could fill: no collateral was asked for
    const ioc = await allocate(input([a, b], { orderType: 'IOC' }), hooks);
    expect(ioc).toMatchObject({
      status: 'filled',
      filledStakeMicros: 5_000_000n,
      payoutMicros: 11_900_000n,
      oddsBps: 23_800,
      releasedMicros: 5_000_000n,
    });
    expect(calls).toEqual([a.quoteId, b.quoteId]);
  });

  it('FOK fails when a skipped maker leaves it short, and reports why each quote did not fill', async () => {
    const a = quote(25_000, 6_000_000n);
    const b = quote(24_000, 6_000_000n);
    const r = await allocate(input([a, b]), { hasCollateral: (q) => q !== a });
    expect(r).toMatchObject({ status: 'expired', reason: 'insufficient_liquidity' });
    expect(summary(r)).toEqual([`${a.quoteId}:rejected:insufficient_collateral`, `${b.quoteId}:not_filled:rfq_expired`]);
  });
});

describe('allocate: collateral, ties, dust, limits', () => {
  it('missing collateral skips to the next best quote; collateral is asked for the exact liability', async () => {
    const poor = quote(30_000, 10_000_000n);
    const good = quote(26_000, 10_000_000n);
    const asked: Array<[string, bigint]> = [];
    const r = await allocate(input([poor, good]), {
      hasCollateral: (q, l) => (asked.push([q.quoteId, l]), q !== poor),
    });
    expect(r).toMatchObject({ status: 'filled', oddsBps: 26_000, payoutMicros: 26_000_000n });
    expect(summary(r)).toEqual([`${poor.quoteId}:rejected:insufficient_collateral`, `${good.quoteId}:filled:10000000:16000000`]);
    expect(asked).toEqual([
      [poor.quoteId, 20_000_000n],
      [good.quoteId, 16_000_000n],
    ]);
  });

  it('ties on odds go to the earlier quote, then to the smaller quote id', async () => {
    const late = quote(25_000, 10_000_000n, { receivedAtMs: NOW - 10 });
    const early = quote(25_000, 10_000_000n, { receivedAtMs: NOW - 20 });
    const r = await allocate(input([late, early]));
    expect(summary(r)).toEqual([`${late.quoteId}:not_filled:outbid`, `${early.quoteId}:filled:10000000:15000000`]);
    const x = quote(25_000, 10_000_000n, { quoteId: 'b', receivedAtMs: NOW });
    const y = quote(25_000, 10_000_000n, { quoteId: 'a', receivedAtMs: NOW });
    expect(summary(await allocate(input([x, y])))).toEqual(['b:not_filled:outbid', 'a:filled:10000000:15000000']);
  });

  it('dust: a remainder below the minimum fill goes unfilled; per-maker payouts round up, never below the minimum odds', async () => {
    const big = quote(10_001, 9_999_999n);
    const dust = quote(10_001, 10_000_000n);
    const ioc = await allocate(input([big, dust], { minOddsBps: 10_001, orderType: 'IOC' }));
    // 9,999,999 * 1.0001 = 10,000,998.9999 -> 10,000,999 (L 1000); the 1-micro remainder is not filled.
    expect(summary(ioc)).toEqual([`${big.quoteId}:filled:9999999:1000`, `${dust.quoteId}:not_filled:outbid`]);
    expect(ioc).toMatchObject({ status: 'filled', payoutMicros: 10_000_999n, oddsBps: 10_001, releasedMicros: 1n });
    const fok = await allocate(input([big, dust], { minOddsBps: 10_001 }));
    expect(fok).toMatchObject({ status: 'expired', reason: 'insufficient_liquidity' });
    // The adversarial case: a 5 USDC IOC at min odds 1.5 against a 1-micro quote at 1.9999 fills nothing.
    const tiny = quote(19_999, 1n);
    const none = await allocate(input([tiny], { stakeMicros: 5_000_000n, minOddsBps: 15_000, orderType: 'IOC' }));
    expect(none).toMatchObject({ status: 'expired', reason: 'insufficient_liquidity', releasedMicros: 5_000_000n });
    // With no minimum fill, the 1-micro fill still pays at least the minimum odds and carries a liability.
    const one = await allocate(input([tiny], { stakeMicros: 5_000_000n, minOddsBps: 15_000, orderType: 'IOC', minFillMicros: 1n }));
    expect(one).toMatchObject({ status: 'filled', filledStakeMicros: 1n, payoutMicros: 2n, oddsBps: 20_000 });
    expect(one.status === 'filled' && one.fills[0]!.liabilityMicros).toBe(1n);
    // A single maker at the minimum stake and odds always carries a liability of at least 1.
    const min = await allocate(input([quote(10_001, 500_000n)], { stakeMicros: 500_000n, minOddsBps: 10_001 }));
    expect(min.status === 'filled' && min.fills[0]!.liabilityMicros).toBe(50n);
  });

  it('expired quotes and quotes below the signed minimum never fill; the close reason says which', async () => {
    const expired = quote(30_000, 10_000_000n, { validUntilMs: NOW });
    const below = quote(19_999, 10_000_000n);
    expect(await allocate(input([]))).toMatchObject({ status: 'expired', reason: 'no_quotes', releasedMicros: 10_000_000n, quotes: [] });
    const onlyExpired = await allocate(input([expired]));
    expect(onlyExpired).toMatchObject({ status: 'expired', reason: 'no_quotes' });
    expect(summary(onlyExpired)).toEqual([`${expired.quoteId}:not_filled:quote_expired`]);
    const r = await allocate(input([expired, below]));
    expect(r).toMatchObject({ status: 'expired', reason: 'below_min_odds' });
    expect(summary(r)).toEqual([`${expired.quoteId}:not_filled:quote_expired`, `${below.quoteId}:not_filled:below_min_odds`]);
    const atMin = await allocate(input([expired, below, quote(20_000, 10_000_000n)]));
    expect(atMin).toMatchObject({ status: 'filled', oddsBps: 20_000 });
  });

  it('IOC where every candidate is skipped expires with insufficient_liquidity and releases everything', async () => {
    const a = quote(25_000, 1_000_000n);
    const r = await allocate(input([a], { orderType: 'IOC' }), { hasCollateral: () => false });
    expect(r).toMatchObject({ status: 'expired', reason: 'insufficient_liquidity', releasedMicros: 10_000_000n });
    expect(summary(r)).toEqual([`${a.quoteId}:rejected:insufficient_collateral`]);
  });

  it('refuses a fill that would take the position above the maximum payout, and uses lower odds instead', async () => {
    const huge = quote(1_000_000, 10_000_000n);
    const fair = quote(25_000, 10_000_000n);
    const r = await allocate(input([huge, fair], { maxPayoutMicros: 50_000_000n }));
    expect(summary(r)).toEqual([`${huge.quoteId}:rejected:payout_exceeds_maximum`, `${fair.quoteId}:filled:10000000:15000000`]);
    const exact = await allocate(input([quote(50_000, 10_000_000n)], { maxPayoutMicros: 50_000_000n }));
    expect(exact).toMatchObject({ status: 'filled', payoutMicros: 50_000_000n });
  });
});
