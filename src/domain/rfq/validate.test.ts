import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../errors.js';
import type { RfqOrderJson } from './typed-data.js';
import { EXAMPLE_ORDER } from '../../testing/rfq-example.js';
import { assertOrderAcceptable, checkOrder, deadlineBounds, type RfqLimits } from './validate.js';

const NOW = 1_767_225_600_000;
const limits: RfqLimits = {
  minStakeMicros: 500_000n,
  maxStakeMicros: 10_000_000_000n,
  maxPayoutMicros: 50_000_000_000n,
  maxLegs: 9,
  quoteWindowMs: 500,
  maxDeadlineMs: 60_000,
};
const order = (over: Partial<RfqOrderJson> = {}): RfqOrderJson => ({ ...EXAMPLE_ORDER, deadline_ms: NOW + 30_000, ...over });

describe('deadline bounds (docs/trading.md, deadlines)', () => {
  it('best mode: now + window + 100 ms .. now + RFQ_MAX_DEADLINE_MS, both inclusive', () => {
    expect(deadlineBounds(NOW, 'best', limits)).toEqual({ earliestMs: NOW + 600, latestMs: NOW + 60_000 });
    expect(checkOrder(order({ deadline_ms: NOW + 600 }), 'best', limits, NOW)).toBeNull();
    expect(checkOrder(order({ deadline_ms: NOW + 60_000 }), 'best', limits, NOW)).toBeNull();
    expect(checkOrder(order({ deadline_ms: NOW + 599 }), 'best', limits, NOW)?.code).toBe('ORDER_EXPIRED');
    expect(checkOrder(order({ deadline_ms: NOW + 60_001 }), 'best', limits, NOW)?.code).toBe('INVALID_ORDER');
  });

  it('manual mode only needs a deadline in the future', () => {
    expect(deadlineBounds(NOW, 'manual', limits)).toEqual({ earliestMs: NOW + 1, latestMs: NOW + 60_000 });
    expect(checkOrder(order({ deadline_ms: NOW + 1 }), 'manual', limits, NOW)).toBeNull();
    expect(checkOrder(order({ deadline_ms: NOW }), 'manual', limits, NOW)).toEqual({
      code: 'ORDER_EXPIRED',
      message: `deadline_ms has passed (must be > ${NOW}); sign a new order with a later deadline`,
      details: [{ in: 'body', path: '/order/deadline_ms', message: `has passed (must be > ${NOW})` }],
    });
  });

  it('follows the configured window and horizon', () => {
    const l = { ...limits, quoteWindowMs: 2000, maxDeadlineMs: 10_000 };
    expect(checkOrder(order({ deadline_ms: NOW + 2099 }), 'best', l, NOW)?.code).toBe('ORDER_EXPIRED');
    expect(checkOrder(order({ deadline_ms: NOW + 2100 }), 'best', l, NOW)).toBeNull();
    expect(checkOrder(order({ deadline_ms: NOW + 10_001 }), 'manual', l, NOW)?.code).toBe('INVALID_ORDER');
  });
});

describe('free semantic checks (docs/getting-started.md, Trading as a taker)', () => {
  it('accepts the example order', () => {
    expect(checkOrder(order(), 'best', limits, NOW)).toBeNull();
    expect(() => assertOrderAcceptable(order(), 'best', limits, NOW)).not.toThrow();
  });

  it('names every repeated market by leg', () => {
    const p = checkOrder(
      order({
        legs: [
          { market_id: 7, direction: 'up' },
          { market_id: 8, direction: 'up' },
          { market_id: 7, direction: 'down' },
        ],
      }),
      'best',
      limits,
      NOW,
    );
    expect(p?.code).toBe('INVALID_ORDER');
    expect(p?.details).toEqual([
      { in: 'body', path: '/order/legs/2/market_id', message: 'repeats market 7 of leg 0: a market may appear once per order' },
    ]);
  });

  it('stake bounds are inclusive', () => {
    expect(checkOrder(order({ stake_micros: 500_000, min_odds_bps: 10_001 }), 'best', limits, NOW)).toBeNull();
    expect(checkOrder(order({ stake_micros: 499_999 }), 'best', limits, NOW)?.details).toEqual([
      { in: 'body', path: '/order/stake_micros', message: 'must be at least 500000' },
    ]);
    expect(checkOrder(order({ stake_micros: 10_000_000_000, min_odds_bps: 50_000 }), 'best', limits, NOW)).toBeNull();
    expect(checkOrder(order({ stake_micros: 10_000_000_001, min_odds_bps: 10_001 }), 'best', limits, NOW)?.details).toEqual([
      { in: 'body', path: '/order/stake_micros', message: 'must be at most 10000000000' },
    ]);
  });

  it('refuses a minimum payout above RFQ_MAX_PAYOUT_MICROS (floor(stake x odds / 10000))', () => {
    // 10,000 USDC at 5.0001 pays 50,001 USDC > 50,000
    const p = checkOrder(order({ stake_micros: 10_000_000_000, min_odds_bps: 50_001 }), 'best', limits, NOW);
    expect(p?.details).toEqual([
      {
        in: 'body',
        path: '/order/min_odds_bps',
        message: 'stake_micros x min_odds_bps pays 50001000000 micros, above the maximum payout of 50000000000',
      },
    ]);
  });
});

describe('free semantic checks: legs and the error body', () => {
  it('more legs than RFQ_MAX_LEGS', () => {
    const legs = Array.from({ length: 4 }, (_, i) => ({ market_id: i + 1, direction: 'up' as const }));
    expect(checkOrder(order({ legs }), 'best', { ...limits, maxLegs: 3 }, NOW)?.details).toEqual([
      { in: 'body', path: '/order/legs', message: 'must have at most 3 legs' },
    ]);
  });

  it('lists every INVALID_ORDER problem at once and reports them before an expired deadline', () => {
    const p = checkOrder(
      order({
        legs: [
          { market_id: 1, direction: 'up' },
          { market_id: 1, direction: 'down' },
        ],
        stake_micros: 1,
        deadline_ms: NOW + 120_000,
      }),
      'best',
      limits,
      NOW,
    );
    expect(p?.code).toBe('INVALID_ORDER');
    expect(p?.details.map((d) => d.path)).toEqual(['/order/legs/1/market_id', '/order/stake_micros', '/order/deadline_ms']);
    const both = checkOrder(order({ stake_micros: 1, deadline_ms: NOW - 1 }), 'best', limits, NOW);
    expect(both?.code).toBe('INVALID_ORDER');
  });

  it('assertOrderAcceptable throws the 422 error body', () => {
    let caught: unknown;
    try {
      assertOrderAcceptable(order({ deadline_ms: NOW }), 'best', limits, NOW);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Unprocessable);
    expect(caught).toMatchObject({ status: 422, code: 'ORDER_EXPIRED' });
  });
});
