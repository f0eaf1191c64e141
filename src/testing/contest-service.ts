// Shared set-up of the contest integration tests (src/http/contests*.int.test.ts): the real service
// (PostgreSQL + Redis, API and workers in one process) with the ledger check after every scenario, and the
// steps those tests share (funded users with a handle, a contest created by the operator, entries, waits).
// useContestService() registers the hooks; a test file calls it once, at its top level.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createOrm, type Orm } from '../db/orm.js';
import type { ServiceProcess } from './service-process.js';
import {
  createContest as createContestSdk,
  createContestEntry,
  createDeposit,
  getAvailableBalance,
  getContest,
  getReservedBalance,
  updatePreferences,
} from '../../generated/openapi/sdk.gen.js';
import type { CreateContestRequest } from '../../generated/openapi/types.gen.js';
import type { TestPrivy } from './identity.js';
import { contestBody } from './contests.js';
import { sdkClient, send } from './sdk-client.js';

export { contestBody };
import { ledgerProblems, newUserSession } from './money.js';
import { startTestService, type TestService } from './test-service.js';

export interface ContestService {
  t: TestService;
  svc: ServiceProcess;
  privy: TestPrivy;
  sql: pg.Client;
  orm: Orm;
  /** The operator's bearer token. */
  operator: string;
}

// Set by the hooks of useContestService (each test file has its own module instance).
let ctx: ContestService;

/** Starts the service before the file's tests, checks the ledger after each, stops it after all. */
export function useContestService(label: string): ContestService {
  const handle = {} as ContestService;
  beforeAll(async () => {
    const t = await startTestService(label);
    Object.assign(handle, {
      t,
      svc: t.svc,
      privy: t.privy,
      sql: t.sql,
      operator: t.operatorToken,
      orm: await createOrm({ databaseUrl: t.db.url }),
    });
    ctx = handle;
  });
  afterEach(async () => {
    expect(await ledgerProblems(handle.sql)).toEqual([]);
  });
  afterAll(async () => {
    await handle.orm?.close(true);
    await handle.t?.stop();
  });
  return handle;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A typed SDK client for the service, as `token` (or anonymous). */
export const client = (token?: string) => sdkClient(ctx.svc.baseUrl, token);
// A contest market takes a YES or NO only once its betting has closed (409 BETTING_OPEN before).
export const untilClosed = (c: Record<string, unknown>) => sleep(Math.max(0, Number(c.betting_closes_ms) - Date.now()) + 50);

export interface User {
  token: string;
  userId: string;
  handle: string;
}

export async function fundedUser(amount: number, handle = `u_${randomUUID().slice(0, 8)}`): Promise<User> {
  const u = await newUserSession(ctx.svc.baseUrl, ctx.privy);
  if (amount > 0) {
    const d = await send(
      createDeposit({ client: sdkClient(ctx.svc.baseUrl, u.token), body: { amount_micros: amount, idempotency_key: randomUUID() } }),
    );
    expect(d.status).toBe(200);
  }
  const h = await send(updatePreferences({ client: sdkClient(ctx.svc.baseUrl, u.token), body: { handle } }));
  expect(h.status).toBe(200);
  return { ...u, handle };
}

export async function balances(u: User) {
  const client = sdkClient(ctx.svc.baseUrl, u.token);
  const [a, r] = await Promise.all([send(getAvailableBalance({ client })), send(getReservedBalance({ client }))]);
  return { available: Number(a.data?.available_micros), reserved: Number(r.data?.reserved_micros) };
}

export async function createContest(over: Record<string, unknown> = {}) {
  // `over` may hold any field (a test's own values); the service, not the client, judges the body.
  const res = await send(
    createContestSdk({ client: sdkClient(ctx.svc.baseUrl, ctx.operator), body: contestBody(over) as CreateContestRequest }),
  );
  expect(res.status, JSON.stringify(res.error)).toBe(201);
  return res.data as { contest_id: string; markets: Array<{ market_id: number; category: string }> } & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export const enter = (u: User, contestId: string, picks: Array<[number, 'up' | 'down']>, key: string = randomUUID()) =>
  send(
    createContestEntry({
      client: client(u.token),
      path: { id: contestId },
      body: { picks: picks.map(([market_id, direction]) => ({ market_id, direction })), idempotency_key: key },
    }),
  );

export async function waitForStatus(contestId: string, status: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await send(getContest({ client: sdkClient(ctx.svc.baseUrl), path: { id: contestId } }));
    if (res.data?.status === status) return res.data;
    if (Date.now() > until) throw new Error(`contest ${contestId} still ${res.data?.status ?? res.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

export const payoutTransactions = async (contestId: string) =>
  Number(
    (
      await ctx.sql.query(
        `select count(*)::int as n from ledger_transactions where reference = $1 and kind in ('contest_payout', 'contest_refund')`,
        [contestId],
      )
    ).rows[0].n,
  );
