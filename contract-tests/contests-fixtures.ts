// Shared setup of the contest contract tests (contests-*.test.ts): users with sessions, funds and handles,
// contests created by the operator, market resolution and waiting for the contest worker. Every call goes
// through the generated client, so every response is checked against the spec like any other.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  createContest,
  createContestEntry,
  createDeposit,
  createSession,
  getAvailableBalance,
  getContest,
  getReservedBalance,
  listContests,
  resolveMarket,
  updatePreferences,
} from '../generated/openapi/sdk.gen.ts';
import type { ContestById, ContestLobbyRow, CreateContestRequest, EntryPick } from '../generated/openapi/types.gen.ts';
import { contestBody as baseContestBody } from '../src/testing/contests.js';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { startContractService, type ContractClient, type ContractService } from './harness.ts';

export const MICRO = 1_000_000;

export interface Env {
  svc: ContractService;
  privy: TestPrivy;
  operator: ContractClient;
}

/** A contest test file's service, with a client without a token. */
export type ContestEnv = Env & { anon: ContractClient };

/** One service per test file, no rate limit (429 is rate-limit.test.ts's business). */
export async function startContestService(label: string): Promise<ContestEnv> {
  const privy = await createTestPrivy();
  const svc = await startContractService(label, { env: { ...privy.env, RATE_LIMIT_PER_MINUTE: '0' } });
  return { svc, privy, operator: svc.client({ token: svc.operatorToken }), anon: svc.client() };
}

/** The test file's service: started before its tests, stopped (exit 0) after them. Read it inside tests and hooks only. */
export function useContestService(label: string): ContestEnv {
  let env: ContestEnv | undefined;
  beforeAll(async () => {
    env = await startContestService(label);
  });
  afterAll(async () => {
    if (env) expect(await env.svc.stop()).toBe(0);
  });
  return new Proxy({} as ContestEnv, {
    get: (_, key) => {
      if (!env) throw new Error(`the service of ${label} is not started yet`);
      return env[key as keyof ContestEnv];
    },
  });
}

export interface User {
  token: string;
  userId: string;
  api: ContractClient;
  handle: string | null;
}

/** A fresh user session; optionally funded (demo deposit, answered 200 once settled) and given a handle. */
export async function newUser(env: Env, opts: { fund?: number; handle?: boolean | string; twitter?: string } = {}): Promise<User> {
  const anon = env.svc.client();
  const sub = `did:privy:${randomBytes(10).toString('hex')}`;
  const privyToken = await env.privy.token(sub, randomWallet().address, opts.twitter ? { twitter: opts.twitter } : {});
  const { data } = await anon.run(createSession({ client: anon.client, body: { privy_token: privyToken } }), { status: 200 });
  const user: User = {
    token: data!.session_token,
    userId: data!.user_id,
    api: env.svc.client({ token: data!.session_token }),
    handle: null,
  };
  if (opts.fund) {
    await user.api.run(createDeposit({ client: user.api.client, body: { amount_micros: opts.fund, idempotency_key: randomUUID() } }), {
      status: 200,
    });
  }
  if (opts.handle) {
    const handle = typeof opts.handle === 'string' ? opts.handle : `u_${randomBytes(6).toString('hex')}`;
    await user.api.run(updatePreferences({ client: user.api.client, body: { handle } }), { status: 200 });
    user.handle = handle;
  }
  return user;
}

export async function balances(u: User): Promise<{ available: number; reserved: number }> {
  const a = await u.api.run(getAvailableBalance({ client: u.api.client }), { status: 200 });
  const r = await u.api.run(getReservedBalance({ client: u.api.client }), { status: 200 });
  return { available: Number(a.data!.available_micros), reserved: Number(r.data!.reserved_micros) };
}

export type LobbyQuery = {
  status?: 'open' | 'resolved' | 'voided';
  category?: 'mentions' | 'sports' | 'culture';
  cursor?: string;
  limit?: number;
};

/** One page of the lobby (listContests) as `api` sees it. */
export const lobbyPage = async (api: ContractClient, query: LobbyQuery = {}) =>
  (await api.run(listContests({ client: api.client, query }), { status: 200 })).data!;

/** Every page of a listing, following next_cursor. */
export async function allPages(api: ContractClient, query: LobbyQuery): Promise<ContestLobbyRow[]> {
  const rows: ContestLobbyRow[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await lobbyPage(api, { ...query, ...(cursor ? { cursor } : {}) });
    rows.push(...page.contests);
    if (page.next_cursor === null) return rows;
    cursor = page.next_cursor;
  }
  throw new Error('the lobby never ended');
}

/** A valid lineups contest (src/testing/contests.ts) with a unique title and a funded prize pool. */
export const contestBody = (over: Partial<CreateContestRequest> = {}): CreateContestRequest =>
  baseContestBody({
    title: `Contract contest ${randomBytes(3).toString('hex')}`,
    bet_amount_micros: MICRO,
    protocol_prize_pool_micros: 10 * MICRO,
    ...over,
  });

export async function newContest(env: Env, over: Partial<CreateContestRequest> = {}): Promise<ContestById> {
  const { data } = await env.operator.run(createContest({ client: env.operator.client, body: contestBody(over) }), { status: 201 });
  return data!;
}

/** Picks on the contest's markets in order, one direction each ('u' = up, 'd' = down). */
export const picksOf = (c: ContestById, dirs: string): EntryPick[] =>
  [...dirs].map((d, i) => ({ market_id: c.markets[i]!.market_id, direction: d === 'u' ? 'up' : 'down' }));

export async function enter(u: User, c: ContestById, dirs: string) {
  return u.api.run(
    createContestEntry({
      client: u.api.client,
      path: { id: c.contest_id },
      body: { picks: picksOf(c, dirs), idempotency_key: randomUUID() },
    }),
    {
      status: 201,
    },
  );
}

/** createContestEntry by `u` (the SDK call, for `run` with the status a test expects). */
export const postEntry = (u: User, c: ContestById | string, picks: EntryPick[], key = randomUUID()) =>
  createContestEntry({
    client: u.api.client,
    path: { id: typeof c === 'string' ? c : c.contest_id },
    body: { picks, idempotency_key: key },
  });

/** The contest as `u` (default: no token) reads it. */
export async function readContest(env: ContestEnv, c: ContestById, u?: User): Promise<ContestById> {
  const api = u?.api ?? env.anon;
  return (await api.run(getContest({ client: api.client, path: { id: c.contest_id } }), { status: 200 })).data!;
}

/**
 * Betting on the contest of `marketId` closes now, as the clock reaching betting_closes_ms would: an outcome
 * is refused before (409 BETTING_OPEN). Written to the test database, the one thing these tests do not do
 * through the API (waiting out a real betting window would cost a minute per contest).
 */
export async function closeBetting(env: Env, marketId: number): Promise<void> {
  const sql = new pg.Client({ connectionString: env.svc.db.url });
  await sql.connect();
  try {
    await sql.query(
      `update contests set betting_closes_ms = least(betting_closes_ms, (extract(epoch from clock_timestamp()) * 1000)::bigint - 1)
        where id = (select contest_id from contest_markets where market_id = $1)`,
      [marketId],
    );
  } finally {
    await sql.end();
  }
}

/** Resolves a market (an outcome once betting has closed: closeBetting first; VOID at any time). */
export async function resolve(env: Env, marketId: number, outcome: 'YES' | 'NO' | 'VOID') {
  if (outcome !== 'VOID') await closeBetting(env, marketId);
  return env.operator.run(resolveMarket({ client: env.operator.client, path: { market_id: marketId }, body: { outcome } }), {
    status: 200,
  });
}

/** Polls getContest (anonymous) until the worker has settled the contest. */
export async function waitForStatus(env: Env, contestId: string, status: 'resolved' | 'voided'): Promise<ContestById> {
  const anon = env.svc.client();
  let last: ContestById | undefined;
  await expect
    .poll(
      async () => {
        last = (await anon.run(getContest({ client: anon.client, path: { id: contestId } }), { status: 200 })).data!;
        return last.status;
      },
      { timeout: 15_000, interval: 100 },
    )
    .toBe(status);
  return last!;
}

export const sleepUntil = async (ms: number) => {
  const wait = ms - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
};

/** The lobby-row fields every contest shape shares, with the pot rule of docs/getting-started.md (Contests). */
export function expectPot(c: {
  protocol_prize_pool_micros: number;
  entries_filled: number;
  bet_amount_micros: number;
  total_pot_micros: number;
}) {
  expect(c.total_pot_micros).toBe(c.protocol_prize_pool_micros + c.entries_filled * c.bet_amount_micros);
}
