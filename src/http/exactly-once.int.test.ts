// Exactly once, under faults (issue 11 item 3, issue 15 item 1): for deposits, withdrawals, app-token
// credits and contest entries, (1) a database error right after the write committed, then a retry with the
// same key; (2) an API process SIGKILLed between commit and response, then a retry with the same key on
// another process. Each ends with exactly one write, the right balances and a clean ledger. Faults are
// injected with FAILPOINTS (src/failpoints.ts) into extra API processes on the same database and queues.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createContestEntry,
  createDeposit,
  createWithdrawal,
  creditAppTokens,
  getAvailableAppTokenBalance,
  getAvailableBalance,
  getReservedBalance,
} from '../../generated/openapi/sdk.gen.js';
import type { OperationPending } from '../../generated/openapi/types.gen.js';
import { randomWallet, type TestPrivy } from '../testing/identity.js';
import { sdkClient, send, type SdkResponse } from '../testing/sdk-client.js';
import { ledgerProblems, newUserSession } from '../testing/money.js';
import { expectReplayed, sendToProcessKilledAfterCommit } from '../testing/exactly-once.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { startTestService, type TestService } from '../testing/test-service.js';
import { newContest } from '../testing/contests.js';

/** An SDK answer of any of the flows' operations: a test reads its status, replay header, operation_id or error code. */
type FlowResponse = SdkResponse<object | undefined, { code: string } | undefined>;

let t: TestService;
let svc: ServiceProcess;
let privy: TestPrivy;
let sql: pg.Client;
let OPERATOR: string;

beforeAll(async () => {
  t = await startTestService('exactlyonce');
  ({ svc, privy, sql, operatorToken: OPERATOR } = t);
});

afterEach(async () => {
  expect(await ledgerProblems(sql)).toEqual([]);
});

afterAll(async () => {
  await t?.stop();
});

const count = async (table: string, where: string, params: unknown[]) =>
  Number((await sql.query(`select count(*)::int as n from ${table} where ${where}`, params)).rows[0].n);

async function balances(token: string) {
  const [a, r, at] = await Promise.all([
    send(getAvailableBalance({ client: sdkClient(svc.baseUrl, token) })),
    send(getReservedBalance({ client: sdkClient(svc.baseUrl, token) })),
    send(getAvailableAppTokenBalance({ client: sdkClient(svc.baseUrl, token) })),
  ]);
  return { available: a.data?.available_micros, reserved: r.data?.reserved_micros, appToken: at.data?.available_app_token_micros };
}

/** One API process (no workers) with failpoints, on the test service's database and queues. */
const faultyApi = (failpoints: string) => startServiceProcess({ env: { ...t.env, FAILPOINTS: failpoints }, args: ['--role=api'] });

interface Ctx {
  token: string;
  userId: string;
  contestId?: string;
  marketId?: number;
}

interface Flow {
  operationId: string;
  /** The first response's status when the failpoint throws after commit. */
  afterErrorStatus: number;
  /** The status of a replay once the write has settled. */
  replayStatus: number;
  prepare(): Promise<Ctx>;
  send(baseUrl: string, ctx: Ctx, key: string): Promise<FlowResponse>;
  /** Exactly one write for this key, and the balances after it. */
  check(ctx: Ctx, key: string): Promise<void>;
}

async function fundedUser(amount: number): Promise<Ctx> {
  const u = await newUserSession(svc.baseUrl, privy);
  if (amount)
    expect(
      (
        await send(
          createDeposit({ client: sdkClient(svc.baseUrl, u.token), body: { amount_micros: amount, idempotency_key: randomUUID() } }),
        )
      ).status,
    ).toBe(200);
  return u;
}

const DEST = randomWallet().address;

const flows: Flow[] = [
  {
    operationId: 'createDeposit',
    afterErrorStatus: 202,
    replayStatus: 200,
    prepare: () => fundedUser(0),
    send: (base, c, key) => send(createDeposit({ client: sdkClient(base, c.token), body: { amount_micros: 100, idempotency_key: key } })),
    async check(c) {
      expect(await count('operations', 'user_id = $1', [c.userId])).toBe(1);
      await expect.poll(() => balances(c.token), { timeout: 20_000 }).toEqual({ available: '100', reserved: '0', appToken: '0' });
    },
  },
  {
    operationId: 'createWithdrawal',
    afterErrorStatus: 202,
    replayStatus: 200,
    prepare: () => fundedUser(1000),
    send: (base, c, key) =>
      send(
        createWithdrawal({
          client: sdkClient(base, c.token),
          body: { amount_micros: 100, destination_address: DEST, idempotency_key: key },
        }),
      ),
    async check(c) {
      expect(await count('operations', `user_id = $1 and kind = 'withdraw'`, [c.userId])).toBe(1);
      await expect.poll(() => balances(c.token), { timeout: 20_000 }).toEqual({ available: '900', reserved: '0', appToken: '0' });
    },
  },
  {
    operationId: 'creditAppTokens',
    afterErrorStatus: 503,
    replayStatus: 200,
    prepare: () => fundedUser(0),
    send: (base, c, key) =>
      send(
        creditAppTokens({
          client: sdkClient(base, OPERATOR),
          path: { user_id: c.userId },
          body: { amount_micros: 5000, idempotency_key: key },
        }),
      ),
    async check(c) {
      const credits = `kind = 'app_token_credit' and id in (select transaction_id from ledger_entries e join ledger_accounts a on a.id = e.account_id where a.user_id = $1)`;
      expect(await count('ledger_transactions', credits, [c.userId])).toBe(1);
      expect(await balances(c.token)).toEqual({ available: '0', reserved: '0', appToken: '5000' });
    },
  },
  {
    operationId: 'createContestEntry',
    afterErrorStatus: 503,
    replayStatus: 201,
    async prepare() {
      const u = await fundedUser(1000);
      const c = await newContest(svc.baseUrl, OPERATOR, {
        title: 'Exactly once',
        category: 'mentions',
        bet_amount_micros: 100,
        entry_cap: 10,
        max_entries_per_user: 5,
        markets: [{ category: 'words', name: 'Says "once"' }],
      });
      return { ...u, contestId: c.id, marketId: c.markets[0]! };
    },
    send: (base, c, key) =>
      send(
        createContestEntry({
          client: sdkClient(base, c.token),
          path: { id: c.contestId! },
          body: { picks: [{ market_id: c.marketId!, direction: 'up' }], idempotency_key: key },
        }),
      ),
    async check(c) {
      expect(await count('contest_entries', 'user_id = $1', [c.userId])).toBe(1);
      expect(await balances(c.token)).toEqual({ available: '900', reserved: '100', appToken: '0' });
    },
  },
];

const replayOnHealthyService = (f: Flow, c: Ctx, key: string) =>
  expectReplayed(
    () => f.send(svc.baseUrl, c, key),
    f.replayStatus,
    () => f.check(c, key),
  );

describe('a database error right after the write committed', () => {
  let faulty: ServiceProcess;
  beforeAll(async () => {
    faulty = await faultyApi(flows.map((f) => `after-commit:${f.operationId}=error`).join(','));
  });
  afterAll(async () => {
    await faulty?.stop();
  });

  for (const f of flows) {
    it(`${f.operationId}: the first answer tells the truth (${f.afterErrorStatus}), the retry replays it, one write`, async () => {
      const c = await f.prepare();
      const key = randomUUID();
      const first = await f.send(faulty.baseUrl, c, key);
      expect(first.status, JSON.stringify(first.data ?? first.error)).toBe(f.afterErrorStatus);
      if (first.status === 202) {
        // A withdrawal's 202 also carries its fee and why it waits (WithdrawalPending).
        const withdrawal = f.operationId === 'createWithdrawal' ? { fee_micros: '0', pending_reason: null } : {};
        expect(first.data).toEqual({ operation_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'pending', ...withdrawal });
      } else {
        expect(first.error?.code).toBe('UNAVAILABLE');
        expect(first.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      const replay = await replayOnHealthyService(f, c, key);
      if (first.status === 202) expect(replay.data).toMatchObject({ operation_id: (first.data as OperationPending).operation_id });
    });
  }
});

describe('an API process SIGKILLed between commit and response', () => {
  for (const f of flows) {
    it(`${f.operationId}: the retry on another process replays the committed write, one write`, async () => {
      const c = await f.prepare();
      const key = randomUUID();
      await sendToProcessKilledAfterCommit(t.env, f.operationId, (baseUrl) => f.send(baseUrl, c, key));
      await replayOnHealthyService(f, c, key);
    });
  }
});
