// One contest created the way an operator does (POST /v1/admin/contests), for tests that need a contest and
// do not test its creation: a lineups contest with two markets, open for an hour, unless `over` says otherwise.
import { expect } from 'vitest';
import { call } from './identity.js';

export interface CreatedContest {
  id: string;
  /** Market ids in the order of the body's `markets`. */
  markets: number[];
  /** The 201 body. */
  body: Record<string, unknown>;
}

export async function newContest(baseUrl: string, operatorToken: string, over: Record<string, unknown> = {}): Promise<CreatedContest> {
  const res = await call(baseUrl, 'POST /v1/admin/contests', {
    token: operatorToken,
    body: {
      title: 'Test contest',
      category: 'sports',
      game_type: 'lineups',
      bet_amount_micros: 100_000,
      protocol_prize_pool_micros: 0,
      entry_cap: 100,
      betting_closes_ms: Date.now() + 3_600_000,
      bet_type: { kind: 'num_bets', value: 1 },
      winning_split_bps: [10000],
      entry_visibility: 'visible',
      markets: [
        { category: 'g', name: 'Home wins' },
        { category: 'g', name: 'Over 2.5' },
      ],
      ...over,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const markets = (res.body.markets as Array<{ market_id: number }>).map((m) => m.market_id);
  return { id: res.body.contest_id as string, markets, body: res.body };
}
