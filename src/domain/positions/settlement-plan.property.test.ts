// Properties of settlementPlan over random batches: positions of one to three legs with random outcomes
// (some still pending, some already settled), each filled by one to three makers drawn from a small set of
// users (so a user is often taker and maker at once, and postings net), as the fill writes them: the
// taker's payout is the pot (its stake plus the makers' liabilities), each fill's payout its stake plus
// its liability.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { positionStatus, type LegOutcome } from './outcome.js';
import { positionsToSettle, settlementPlan, type PlanFill, type PlanPosition } from './settlement-plan.js';
import { makerOwner, parseOwner, takerOwner } from '../trading-counters.js';

const USERS = ['u1', 'u2', 'u3', 'u4'];
const walletOf = (userId: string) => `0x${userId.padStart(40, '0')}`;
const NOW = 1_767_225_600_000;

const fillArb = fc.record({
  maker: fc.constantFrom(...USERS),
  stake: fc.bigInt({ min: 1n, max: 5_000_000n }),
  liability: fc.bigInt({ min: 1n, max: 20_000_000n }),
});
const positionArb = fc.record({
  taker: fc.constantFrom(...USERS),
  legs: fc.array(fc.constantFrom<LegOutcome>('pending', 'won', 'lost', 'voided'), { minLength: 1, maxLength: 3 }),
  alreadySettled: fc.boolean(),
  fills: fc.array(fillArb, { minLength: 1, maxLength: 3 }),
});

type RawPosition = typeof positionArb extends fc.Arbitrary<infer T> ? T : never;

function batchOf(raw: RawPosition[]) {
  const positions: PlanPosition[] = [];
  const fills: PlanFill[] = [];
  raw.forEach((r, i) => {
    const id = `p${String(i).padStart(4, '0')}`;
    const stake = r.fills.reduce((s, f) => s + f.stake, 0n);
    const pot = stake + r.fills.reduce((s, f) => s + f.liability, 0n);
    const status = r.alreadySettled && positionStatus(r.legs) !== 'open' ? positionStatus(r.legs) : 'open';
    positions.push({ id, rfqId: `r${i}`, takerUserId: r.taker, stake, payout: pot, status, legs: r.legs });
    r.fills.forEach((f, j) =>
      fills.push({
        id: `${id}-f${j}`,
        positionId: id,
        makerAddress: walletOf(f.maker),
        makerUserId: f.maker,
        stake: f.stake,
        payout: f.stake + f.liability,
        liability: f.liability,
      }),
    );
  });
  return { positions, fills };
}

const batchArb = fc.array(positionArb, { maxLength: 12 }).map(batchOf);

describe('settlementPlan: properties', () => {
  it('settles exactly the open positions whose legs are decided, each with the status of its legs', () => {
    fc.assert(
      fc.property(batchArb, ({ positions, fills }) => {
        const plan = settlementPlan(positions, fills, NOW);
        const expected = positions.filter((p) => p.status === 'open' && positionStatus(p.legs) !== 'open');
        expect(plan.positions.map((p) => p.id)).toEqual(expected.map((p) => p.id));
        expect(positionsToSettle(positions).map((p) => p.id)).toEqual(expected.map((p) => p.id));
        for (const p of plan.positions) expect(p.status).toBe(positionStatus(positions.find((x) => x.id === p.id)!.legs));
        const settledFills = fills.filter((f) => expected.some((p) => p.id === f.positionId));
        expect(plan.makerPnls.map((m) => m.id)).toEqual(settledFills.map((f) => f.id));
        expect(plan.events).toHaveLength(settledFills.length);
      }),
    );
  });

  it('conserves money: what takers and makers receive equals what was reserved for the settled positions', () => {
    fc.assert(
      fc.property(batchArb, ({ positions, fills }) => {
        const plan = settlementPlan(positions, fills, NOW);
        const settled = new Set(plan.positions.map((p) => p.id));
        const reserved =
          positions.filter((p) => settled.has(p.id)).reduce((s, p) => s + p.stake, 0n) +
          fills.filter((f) => settled.has(f.positionId)).reduce((s, f) => s + f.liability, 0n);
        const sum = (kind: string) => plan.entries.filter((e) => e.account.kind === kind).reduce((s, e) => s + e.amount, 0n);
        expect(sum('user_reserved')).toBe(-reserved);
        expect(sum('user_available')).toBe(reserved);
        expect(plan.entries.every((e) => e.amount !== 0n)).toBe(true);
        // One entry per (user, account): the batch posts net movements.
        const keys = plan.entries.map((e) => `${e.account.userId}|${e.account.kind}`);
        expect(new Set(keys).size).toBe(keys.length);
      }),
    );
  });

  it('PnL sums to zero: the taker wins what its makers lose, position by position', () => {
    fc.assert(
      fc.property(batchArb, ({ positions, fills }) => {
        const plan = settlementPlan(positions, fills, NOW);
        const makerPnl = new Map(plan.makerPnls.map((m) => [m.id, m.pnl]));
        for (const p of plan.positions) {
          const makers = fills.filter((f) => f.positionId === p.id).reduce((s, f) => s + makerPnl.get(f.id)!, 0n);
          expect(p.pnl + makers).toBe(0n);
          if (p.status === 'voided') expect(p.pnl).toBe(0n);
        }
        for (const e of plan.events) {
          if (e.topic !== 'mm.event' || e.frame.type !== 'position_settled') throw new Error('only position_settled frames');
          expect(e.frame.settled_at_ms).toBe(NOW);
        }
      }),
    );
  });

  it('moves the counters by exactly the sums over the settled positions and fills, per owner', () => {
    fc.assert(
      fc.property(batchArb, ({ positions, fills }) => {
        const plan = settlementPlan(positions, fills, NOW);
        const status = new Map(plan.positions.map((p) => [p.id, p]));
        for (const c of plan.counters) {
          const who = parseOwner(c.owner);
          // The rows this owner holds among the settled ones: (at risk, potential payout, its result, its PnL).
          const rows =
            who.side === 'taker'
              ? positions
                  .filter((p) => status.has(p.id) && takerOwner(p.takerUserId) === c.owner)
                  .map((p) => ({ risk: p.stake, payout: p.payout, result: status.get(p.id)!.status, pnl: status.get(p.id)!.pnl }))
              : fills
                  .filter((f) => status.has(f.positionId) && makerOwner(f.makerAddress) === c.owner)
                  .map((f) => {
                    const s = status.get(f.positionId)!.status;
                    const result = s === 'won' ? 'lost' : s === 'lost' ? 'won' : 'voided';
                    return { risk: f.liability, payout: f.payout, result, pnl: plan.makerPnls.find((m) => m.id === f.id)!.pnl };
                  });
          expect(rows.length).toBeGreaterThan(0);
          expect(c.openCount).toBe(-rows.length);
          expect(c.settled).toBe(rows.length);
          expect(c.openStake).toBe(-rows.reduce((s, r) => s + r.risk, 0n));
          expect(c.potentialPayout).toBe(-rows.reduce((s, r) => s + r.payout, 0n));
          expect(c.wins).toBe(rows.filter((r) => r.result === 'won').length);
          expect(c.losses).toBe(rows.filter((r) => r.result === 'lost').length);
          expect(c.voided).toBe(rows.filter((r) => r.result === 'voided').length);
          expect(c.pnl).toBe(rows.reduce((s, r) => s + r.pnl, 0n));
        }
        // Every settled position's taker and every settled fill's maker has its counters moved; the PnLs
        // across all counters sum to zero.
        const owners = new Set(plan.counters.map((c) => c.owner));
        expect(owners.size).toBe(plan.counters.length);
        for (const p of positions.filter((x) => status.has(x.id))) expect(owners.has(takerOwner(p.takerUserId))).toBe(true);
        expect(plan.counters.reduce((s, c) => s + c.pnl, 0n)).toBe(0n);
      }),
    );
  });
});

describe('trading counters owner keys', () => {
  it('parse back what they build; a maker key is lowercase', () => {
    expect(parseOwner(takerOwner('00000000-0000-4000-8000-000000000001'))).toEqual({
      side: 'taker',
      userId: '00000000-0000-4000-8000-000000000001',
    });
    expect(makerOwner('0xABCDEF0000000000000000000000000000000001')).toBe('mm:0xabcdef0000000000000000000000000000000001');
    expect(parseOwner(makerOwner('0xAb00000000000000000000000000000000000001'))).toEqual({
      side: 'maker',
      wallet: '0xab00000000000000000000000000000000000001',
    });
    expect(() => parseOwner('operator:user:1')).toThrow(RangeError);
    expect(() => parseOwner('user:')).toThrow(RangeError);
  });
});
