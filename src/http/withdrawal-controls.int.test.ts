// The custody controls of withdrawals on two API processes and a workers process (PostgreSQL + Redis, demo
// settlement; docs/operations.md, "Custody"): 20 concurrent withdrawals of one user across both APIs never pass
// the daily limit by a micro; the deployment's hourly volume holds the overflow for review; an approval pays once
// and a rejection refunds once, each decided by exactly one of two operators racing on the two APIs; every
// destination rule refuses with nothing reserved; the denylist file is re-read; a loop to one's own deposit address
// and 1-micro withdrawals are refused. The ledger check runs after each scenario. (The onchain rules: the token,
// the settlement wallet, custodial addresses and the sanctions oracle: workers/onchain-withdrawal-controls.int.test.ts.)
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  approveWithdrawal,
  createDeposit,
  createWithdrawal,
  getAvailableBalance,
  getDepositWallet,
  getOperation,
  getReservedBalance,
  rejectWithdrawal,
} from '../../generated/openapi/sdk.gen.js';
import { randomWallet } from '../testing/identity.js';
import { ledgerProblems, newUserSession } from '../testing/money.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { startTestService, type TestService } from '../testing/test-service.js';

const USDC = 1_000_000;
const FEE = 50_000;
const DAILY = 10 * USDC;
const HOURLY = 16 * USDC;
const REVIEW_ABOVE = 8 * USDC;
const COLD = randomWallet().address;
const LISTED = randomWallet().address;
const denylist = join(mkdtempSync(join(tmpdir(), 'denylist-')), 'denylist');

let t: TestService;
let apis: ServiceProcess[];

beforeAll(async () => {
  writeFileSync(denylist, `# refused destinations\n${LISTED}\n`);
  t = await startTestService('wcontrols', {
    WITHDRAWAL_MIN_MICROS: String(USDC),
    WITHDRAWAL_FEE_MICROS: String(FEE),
    WITHDRAWAL_DAILY_LIMIT_MICROS: String(DAILY),
    WITHDRAWALS_HOURLY_LIMIT_MICROS: String(HOURLY),
    WITHDRAWAL_REVIEW_ABOVE_MICROS: String(REVIEW_ABOVE),
    COLD_WALLET_ADDRESS: COLD,
    WITHDRAWAL_DENYLIST_FILE: denylist,
    WITHDRAWAL_DENYLIST_RELOAD_MS: '100',
  });
  apis = [t.svc, await startServiceProcess({ env: t.env, args: ['--role=api'] })];
});
afterEach(async () => expect(await ledgerProblems(t.sql)).toEqual([]));
afterAll(async () => {
  await apis?.[1]?.stop();
  await t?.stop();
});

interface User {
  token: string;
  userId: string;
}
const api = (i: number, token?: string) => sdkClient(apis[i % 2]!.baseUrl, token);

async function fundedUser(micros: number): Promise<User> {
  const u = await newUserSession(t.svc.baseUrl, t.privy);
  const res = await sent(createDeposit({ client: api(0, u.token), body: { amount_micros: micros, idempotency_key: randomUUID() } }));
  expect(res.status).toBe(200);
  return u;
}
const withdraw = (u: User, amount: number, to: string = randomWallet().address, on = 0) =>
  sent(
    createWithdrawal({ client: api(on, u.token), body: { amount_micros: amount, destination_address: to, idempotency_key: randomUUID() } }),
  );
const balances = async (u: User) => [
  (await sent(getAvailableBalance({ client: api(0, u.token) }))).data!.available_micros,
  (await sent(getReservedBalance({ client: api(1, u.token) }))).data!.reserved_micros,
];
const withdrawalsOf = async (u: User) =>
  Number((await t.sql.query(`select count(*)::int as n from operations where user_id = $1 and kind = 'withdraw'`, [u.userId])).rows[0].n);
const postingsOf = async (operationId: string) =>
  (await t.sql.query(`select kind from ledger_transactions where reference = $1 order by kind`, [operationId])).rows.map(
    (r) => r.kind as string,
  );
const decide = (on: number, fn: typeof approveWithdrawal | typeof rejectWithdrawal, operationId: string) =>
  sent(
    fn({
      client: api(on, t.operatorToken),
      path: { operation_id: operationId },
      body: { reason: `operator on API ${on}`, idempotency_key: randomUUID() },
    }),
  );

describe('destinations', () => {
  it('every rule refuses with nothing reserved: the zero address, the cold wallet, the denylist, your own deposit address', async () => {
    const u = await fundedUser(20 * USDC);
    const own = (await sent(getDepositWallet({ client: api(1, u.token) }))).data!.address!;
    for (const [to, rule] of [
      ['0x0000000000000000000000000000000000000000', 'zero_address'],
      [COLD.toLowerCase(), 'cold_wallet'],
      [LISTED, 'denylist'],
      [own, 'deposit_address'],
    ] as const) {
      const res = await withdraw(u, 2 * USDC, to, 1);
      expect([res.status, res.error?.code, (res.error?.details as { rule?: string }).rule]).toEqual([422, 'DESTINATION_NOT_ALLOWED', rule]);
    }
    expect(await withdrawalsOf(u)).toBe(0);
    expect(await balances(u)).toEqual([String(20 * USDC), '0']);
  });

  it('abuse: a loop of withdrawals to your own deposit address is refused each time, and so is every 1-micro withdrawal', async () => {
    const u = await fundedUser(5 * USDC);
    const own = (await sent(getDepositWallet({ client: api(0, u.token) }))).data!.address!;
    const loop = await Promise.all(Array.from({ length: 10 }, (_, i) => withdraw(u, USDC, own, i)));
    expect(loop.map((r) => (r.error?.details as { rule?: string }).rule)).toEqual(Array(10).fill('deposit_address'));
    const dust = await Promise.all(Array.from({ length: 10 }, (_, i) => withdraw(u, 1, undefined, i)));
    expect(dust.map((r) => r.error?.code)).toEqual(Array(10).fill('WITHDRAWAL_TOO_SMALL'));
    expect(await withdrawalsOf(u)).toBe(0);
    expect(await balances(u)).toEqual([String(5 * USDC), '0']);
  });

  it('the denylist file is re-read on every API process: an address added is refused, one removed is allowed again', async () => {
    const u = await fundedUser(10 * USDC);
    const next = randomWallet().address;
    // A 1-micro probe writes nothing either way: refused for its destination while listed (that rule comes
    // first), else for its amount.
    const probe = async (to: string, on: number) => (await withdraw(u, 1, to, on)).error?.code;
    expect(await probe(next, 0)).toBe('WITHDRAWAL_TOO_SMALL');
    writeFileSync(denylist, `${LISTED}\n${next.toLowerCase()}\n`);
    for (const on of [0, 1]) {
      // Within WITHDRAWAL_DENYLIST_RELOAD_MS (100 ms) on each process; the bound only stops a broken reload.
      await expect.poll(() => probe(next, on), { timeout: 20_000, interval: 50 }).toBe('DESTINATION_NOT_ALLOWED');
    }
    writeFileSync(denylist, `${next}\n`);
    for (const on of [0, 1]) await expect.poll(() => probe(LISTED, on), { timeout: 20_000, interval: 50 }).toBe('WITHDRAWAL_TOO_SMALL');
    expect(await withdrawalsOf(u)).toBe(0);
    expect((await withdraw(u, USDC, LISTED, 1)).status).toBe(200);
    expect((await withdraw(u, USDC, next, 0)).error?.code).toBe('DESTINATION_NOT_ALLOWED');
  });
});

describe('limits', () => {
  it('20 concurrent withdrawals of one user across both APIs: the daily limit passes exactly, not a micro more', async () => {
    const u = await fundedUser(100 * USDC);
    const amount = 2.5 * USDC;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => withdraw(u, amount, undefined, i)));
    const accepted = answers.filter((a) => a.status === 200 || a.status === 202);
    const refused = answers.filter((a) => a.status === 422);
    expect(accepted).toHaveLength(DAILY / amount);
    expect(refused).toHaveLength(20 - DAILY / amount);
    for (const r of refused)
      expect(r.error).toMatchObject({ code: 'WITHDRAWAL_LIMIT_EXCEEDED', details: { limit_micros: String(DAILY), remaining_micros: '0' } });
    const { rows } = await t.sql.query(
      `select coalesce(sum(amount), 0)::bigint::text as s from operations where user_id = $1 and kind = 'withdraw'`,
      [u.userId],
    );
    expect(rows[0].s).toBe(String(DAILY));
    await expect.poll(async () => (await balances(u))[1], { timeout: 30_000 }).toBe('0');
    expect((await balances(u))[0]).toBe(String(100 * USDC - 4 * (amount + FEE)));
  });

  it('the hourly volume holds the overflow for review (202 pending_reason review), never sends it, never delays it silently', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => fundedUser(5 * USDC)));
    const { rows } = await t.sql.query(`
      select coalesce(sum(amount), 0)::bigint::text as v from operations o
       where kind = 'withdraw' and status <> 'failed' and created_at > now() - interval '1 hour'
         and not exists (select 1 from withdrawal_reviews r where r.operation_id = o.id)`);
    const room = HOURLY - Number(rows[0].v);
    const answers = await Promise.all(users.map((u, i) => withdraw(u, 2 * USDC, undefined, i)));
    const sent = answers.filter((a) => a.status === 200);
    const held = answers.filter((a) => a.status === 202);
    expect(sent).toHaveLength(Math.floor(room / (2 * USDC)));
    expect(held).toHaveLength(8 - sent.length);
    for (const h of held) expect(h.data).toMatchObject({ pending_reason: 'review', fee_micros: String(FEE) });
    const ids = held.map((h) => h.data!.operation_id);
    const reviews = await t.sql.query(`select causes from withdrawal_reviews where operation_id = any($1::uuid[])`, [ids]);
    expect(reviews.rows.map((r) => r.causes)).toEqual(Array(held.length).fill(['hourly_limit']));
    expect(await t.sql.query(`select * from operation_outbox where operation_id = any($1::uuid[])`, [ids])).toMatchObject({ rowCount: 0 });
    expect(held.length).toBeGreaterThanOrEqual(2);
  });
});

describe('review', () => {
  it('approve pays exactly once (two operators racing on two APIs: one 200, one 409); reject refunds exactly once', async () => {
    const payer = await fundedUser(20 * USDC);
    const refused = await fundedUser(20 * USDC);
    const [a, b] = [await withdraw(payer, 9 * USDC), await withdraw(refused, 9 * USDC, undefined, 1)];
    for (const w of [a, b]) expect(w).toMatchObject({ status: 202, data: { pending_reason: 'review' } });
    const [aId, bId] = [a.data!.operation_id, b.data!.operation_id];
    expect(await balances(payer)).toEqual([String(11 * USDC - FEE), String(9 * USDC + FEE)]);

    const approvals = await Promise.all([decide(0, approveWithdrawal, aId), decide(1, approveWithdrawal, aId)]);
    expect(approvals.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(approvals.find((r) => r.status === 409)!.error?.code).toBe('WITHDRAWAL_NOT_IN_REVIEW');
    await expect
      .poll(async () => (await sent(getOperation({ client: api(1, payer.token), path: { operation_id: aId } }))).data!.status, {
        timeout: 30_000,
      })
      .toBe('success');
    expect(await postingsOf(aId)).toEqual(['withdraw_reserve', 'withdraw_settle']);
    expect(await balances(payer)).toEqual([String(11 * USDC - FEE), '0']);
    expect((await decide(1, approveWithdrawal, aId)).status).toBe(409);

    const rejections = await Promise.all([decide(1, rejectWithdrawal, bId), decide(0, rejectWithdrawal, bId)]);
    expect(rejections.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await postingsOf(bId)).toEqual(['withdraw_refund', 'withdraw_reserve']);
    expect(await balances(refused)).toEqual([String(20 * USDC), '0']);
    expect((await decide(0, approveWithdrawal, bId)).error?.code).toBe('WITHDRAWAL_NOT_IN_REVIEW');
    const op = await sent(getOperation({ client: api(0, refused.token), path: { operation_id: bId } }));
    expect(op.data).toMatchObject({ status: 'failed', failure_code: 'WITHDRAWAL_REJECTED', fee_micros: String(FEE), pending_reason: null });
  });
});
