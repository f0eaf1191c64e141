// Medium tier: the withdrawal controls' rules on real PostgreSQL (src/domain/money/requests.ts,
// withdrawal-review.ts): refusals write nothing; concurrent requests of one user never pass the daily limit and
// of many users never send past the hourly volume; the windows roll; the fee is reserved with the amount, kept
// when paid and refunded on failure; a held withdrawal is never settled until approved, and approved or
// rejected exactly once. The ledger check runs after each.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withdrawalsRepository } from '../../db/repositories/withdrawals.repository.js';
import { db } from '../../db/schema.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { AppError } from '../errors.js';
import { checkLedger, userBalances } from '../ledger/ledger.js';
import { createDemoSettlement, DEMO_FAILING_DESTINATION } from '../settlement/demo.js';
import { findOperation, openDeposit, settleOperation, settleOperations } from './operations.js';
import { requestWithdrawal, screenDestination, type Custody } from './requests.js';
import { approveWithdrawal, rejectWithdrawal } from './withdrawal-review.js';
import { inTransaction } from '../../db/unit-of-work.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('withdrawals');
});
afterAll(async () => t?.close());
afterEach(async () => expect(await checkLedger(em())).toEqual([]));

const adapter = createDemoSettlement({ onchainBalanceMicros: 10n ** 12n });
const em = () => t.orm.em.fork();
const to = () => `0x${randomUUID().replace(/-/g, '')}12345678`;
const custody = (rules: Partial<Custody['rules']> = {}): Custody => ({
  rules: { minMicros: 1_000n, feeMicros: 10n, dailyLimitMicros: null, hourlyLimitMicros: null, reviewAboveMicros: null, ...rules },
  depositMinMicros: 1n,
  addresses: { token: null, settlement: null, cold: null },
  denylist: { has: () => false },
  sanctions: undefined,
});

async function fundedUser(micros: bigint): Promise<string> {
  const id = randomUUID();
  await db(em()).insertInto('users').values({ id, wallet_address: to() }).execute();
  const dep = await em().transactional((tx) => openDeposit(tx, id, micros, randomUUID()));
  expect(await settleOperation(em(), adapter, dep.id)).toBe('settled');
  return id;
}

async function withdraw(c: Custody, userId: string, amount: bigint, destination = to()) {
  const screened = await screenDestination(c, destination);
  return inTransaction(em(), (tx) => requestWithdrawal(tx, c, { userId, amount, destination, key: randomUUID(), screened }));
}
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof AppError ? e.code : Promise.reject(e)),
  );
const operationsOf = async (userId: string) =>
  (await db(em()).selectFrom('operations').select('id').where('user_id', '=', userId).execute()).length;

describe('withdrawal requests under the custody rules', () => {
  it('refusals reserve and write nothing: destination, minimum, daily limit', async () => {
    const u = await fundedUser(100_000n);
    const c = custody({ dailyLimitMicros: 50_000n });
    const deposit = to();
    await db(em()).insertInto('deposit_addresses').values({ address: deposit, user_id: u, deposit_index: '7', from_block: '0' }).execute();
    expect(await codeOf(withdraw(c, u, 5_000n, `0x${'0'.repeat(40)}`))).toBe('DESTINATION_NOT_ALLOWED');
    expect(await codeOf(withdraw(c, u, 5_000n, deposit.toLowerCase()))).toBe('DESTINATION_NOT_ALLOWED');
    expect(await codeOf(withdraw({ ...c, denylist: { has: (a) => a === deposit.toLowerCase() } }, u, 5_000n, deposit))).toBe(
      'DESTINATION_NOT_ALLOWED',
    );
    expect(await codeOf(withdraw(c, u, 999n))).toBe('WITHDRAWAL_TOO_SMALL');
    expect(await codeOf(withdraw(c, u, 50_001n))).toBe('WITHDRAWAL_LIMIT_EXCEEDED');
    expect(await operationsOf(u)).toBe(1); // the deposit only
    expect(await userBalances(em(), u)).toMatchObject({ available: 100_000n, reserved: 0n });
  });

  it('the sanctions oracle: a listed address is refused; an oracle that does not answer refuses for now (503), never "not listed"', async () => {
    const u = await fundedUser(100_000n);
    const [listed, clean] = [to(), to()];
    let answering = true;
    const sanctions = {
      check: async (a: string) => (answering ? a === listed.toLowerCase() : ('unknown' as const)),
      close: async () => undefined,
    };
    const c = { ...custody(), sanctions };
    expect(await codeOf(withdraw(c, u, 5_000n, listed))).toBe('DESTINATION_NOT_ALLOWED');
    expect(await codeOf(withdraw(c, u, 5_000n, clean))).toBe('accepted');
    answering = false;
    expect(await codeOf(withdraw(c, u, 5_000n, clean))).toBe('UNAVAILABLE');
    // The other rules still answer first: the zero address needs no oracle.
    expect(await codeOf(withdraw(c, u, 5_000n, `0x${'0'.repeat(40)}`))).toBe('DESTINATION_NOT_ALLOWED');
    expect(await operationsOf(u)).toBe(2); // the deposit and the one accepted withdrawal
  });

  it('20 concurrent withdrawals of one user: exactly the daily limit passes, not a micro more', async () => {
    const u = await fundedUser(1_000_000n);
    const c = custody({ dailyLimitMicros: 100_000n });
    const codes = await Promise.all(Array.from({ length: 20 }, () => codeOf(withdraw(c, u, 25_000n))));
    expect(codes.filter((x) => x === 'accepted')).toHaveLength(4);
    expect(codes.filter((x) => x === 'WITHDRAWAL_LIMIT_EXCEEDED')).toHaveLength(16);
    expect(await userBalances(em(), u)).toMatchObject({ available: 1_000_000n - 4n * 25_010n, reserved: 4n * 25_010n });
  });

  it('20 concurrent withdrawals of 20 users: sent without review up to the hourly volume, the rest held', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => fundedUser(100_000n)));
    // What the earlier tests of this file sent counts too: the limit leaves room for exactly 5 more.
    const volume = await withdrawalsRepository(db(em())).automaticWithdrawnSince(3_600_000);
    const c = custody({ hourlyLimitMicros: volume + 5n * 20_000n });
    const ops = await Promise.all(users.map((u) => withdraw(c, u, 20_000n)));
    expect(ops.filter((o) => o.pendingReason === null)).toHaveLength(5);
    expect(ops.filter((o) => o.pendingReason === 'review')).toHaveLength(15);
  });

  it('the windows roll: a withdrawal older than 24 h no longer counts against the daily limit', async () => {
    const u = await fundedUser(100_000n);
    const c = custody({ dailyLimitMicros: 30_000n });
    const old = await withdraw(c, u, 30_000n);
    expect(await codeOf(withdraw(c, u, 1_000n))).toBe('WITHDRAWAL_LIMIT_EXCEEDED');
    await db(em())
      .updateTable('operations')
      .set({ created_at: new Date(Date.now() - 25 * 3600_000).toISOString() })
      .where('id', '=', old.id)
      .execute();
    expect(await codeOf(withdraw(c, u, 30_000n))).toBe('accepted');
  });
});

describe('fees and holds', () => {
  it('the fee is reserved with the amount, kept by the treasury when paid, and refunded with it on failure', async () => {
    const u = await fundedUser(100_000n);
    const c = custody({ feeMicros: 500n });
    const treasury = async () =>
      BigInt(
        (await db(em()).selectFrom('ledger_accounts').select('balance').where('kind', '=', 'treasury').executeTakeFirstOrThrow()).balance,
      );
    const before = await treasury();
    const paid = await withdraw(c, u, 10_000n);
    const failed = await withdraw(c, u, 20_000n, DEMO_FAILING_DESTINATION);
    expect(await userBalances(em(), u)).toMatchObject({ available: 69_000n, reserved: 31_000n });
    expect(await settleOperations(em(), adapter, [paid.id, failed.id])).toEqual(
      new Map([
        [paid.id, 'settled'],
        [failed.id, 'failed'],
      ]),
    );
    expect(await userBalances(em(), u)).toMatchObject({ available: 89_500n, reserved: 0n });
    expect((await treasury()) - before).toBe(500n);
  });

  it('a held withdrawal is never settled; approved once it is, rejected once it is refunded, and nothing decides twice', async () => {
    const u = await fundedUser(100_000n);
    const c = custody({ reviewAboveMicros: 5_000n });
    const [a, b] = [await withdraw(c, u, 6_000n), await withdraw(c, u, 7_000n)];
    expect([a.pendingReason, b.pendingReason]).toEqual(['review', 'review']);
    const outbox = await db(em()).selectFrom('operation_outbox').select('operation_id').where('operation_id', 'in', [a.id, b.id]).execute();
    expect(outbox).toEqual([]); // no worker is ever handed them
    expect(await settleOperations(em(), adapter, [a.id, b.id])).toEqual(
      new Map([
        [a.id, 'held'],
        [b.id, 'held'],
      ]),
    );
    const decide = (fn: typeof rejectWithdrawal, id: string) =>
      codeOf(inTransaction(em(), (tx) => fn(tx, { operationId: id, reason: 'checked', operator: 'alice' })));
    // An approval and a rejection racing for one withdrawal: the operation's lock lets exactly one decide.
    const race = await Promise.all([decide(approveWithdrawal, a.id), decide(rejectWithdrawal, a.id)]);
    expect(race.sort()).toEqual(['WITHDRAWAL_NOT_IN_REVIEW', 'accepted']);
    const aNow = (await findOperation(em(), a.id))!;
    if (aNow.status === 'failed') {
      expect(aNow).toMatchObject({ failureCode: 'WITHDRAWAL_REJECTED', pendingReason: null });
    } else {
      expect(aNow).toMatchObject({ status: 'pending', pendingReason: null });
      expect(await settleOperation(em(), adapter, a.id)).toBe('settled');
    }
    expect(await decide(rejectWithdrawal, b.id)).toBe('accepted');
    expect(await decide(rejectWithdrawal, b.id)).toBe('WITHDRAWAL_NOT_IN_REVIEW');
    expect(await decide(approveWithdrawal, b.id)).toBe('WITHDRAWAL_NOT_IN_REVIEW');
    expect(await findOperation(em(), b.id)).toMatchObject({ status: 'failed', failureCode: 'WITHDRAWAL_REJECTED' });
    const refunds = await db(em()).selectFrom('ledger_transactions').select('kind').where('reference', '=', b.id).orderBy('kind').execute();
    expect(refunds.map((r) => r.kind)).toEqual(['withdraw_refund', 'withdraw_reserve']);
    const rejected = aNow.status === 'failed' ? 6_010n : 0n;
    expect(await userBalances(em(), u)).toMatchObject({ available: 100_000n - 6_010n + rejected, reserved: 0n });
    const deposit = await db(em())
      .selectFrom('operations')
      .select('id')
      .where('user_id', '=', u)
      .where('kind', '=', 'deposit')
      .executeTakeFirstOrThrow();
    expect(await decide(approveWithdrawal, deposit.id)).toBe('WITHDRAWAL_NOT_FOUND');
  });
});
