// One contest created the way an operator does (POST /v1/admin/contests), for tests that need a contest and
// do not test its creation: a lineups contest with two markets, open for an hour, unless `over` says otherwise.
import { expect } from 'vitest';
import { createContest } from '../../generated/openapi/sdk.gen.js';
import type { CreateContestRequest } from '../../generated/openapi/types.gen.js';
import { sdkClient, sent } from './sdk-client.js';

export interface CreatedContest {
  id: string;
  /** Market ids in the order of the body's `markets`. */
  markets: number[];
  /** The 201 body. */
  body: Record<string, unknown>;
}

/** A valid lineups contest body: two markets in one category, num_bets 2, betting open for a minute. */
export function contestBody(over: Partial<CreateContestRequest> = {}): CreateContestRequest {
  return {
    title: 'Test contest',
    category: 'mentions',
    game_type: 'lineups',
    bet_amount_micros: 100_000,
    protocol_prize_pool_micros: 0,
    entry_cap: 100,
    betting_closes_ms: Date.now() + 60_000,
    bet_type: { kind: 'num_bets', value: 2 },
    winning_split_bps: [6000, 3000, 1000],
    markets: [
      { category: 'words', name: 'Says "inflation"' },
      { category: 'words', name: 'Says "recession"' },
    ],
    ...over,
  };
}

export async function newContest(baseUrl: string, operatorToken: string, over: Record<string, unknown> = {}): Promise<CreatedContest> {
  // `over` may hold any field (a test's own values); the service, not the client, judges the body.
  const body = {
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
  } as CreateContestRequest;
  const res = await sent(createContest({ client: sdkClient(baseUrl, operatorToken), body }));
  expect(res.status, JSON.stringify(res.error)).toBe(201);
  const created = res.data!;
  return { id: created.contest_id, markets: created.markets.map((m) => m.market_id), body: created as unknown as Record<string, unknown> };
}
