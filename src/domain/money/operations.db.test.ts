// Medium tier: the settlement worker's batch (settleOperations) on real PostgreSQL: the same effects as
// settling each operation alone, in one transaction.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { db } from '../../db/schema.js';
import { checkLedger, userBalances } from '../ledger/ledger.js';
import { createDemoSettlement, DEMO_FAILING_DESTINATION, demoTxHash } from '../settlement/demo.js';
import { findOperation, openDeposit, openWithdrawal, settleOperation, settleOperations } from './operations.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('operations');
});
afterAll(async () => t?.close());

const adapter = createDemoSettlement({ onchainBalanceMicros: 1_000n });
const em = () => t.orm.em.fork();
/** A pending deposit / withdrawal under a fresh idempotency key, each in a transaction of its own (as the handlers open them). */
const createDeposit = (userId: string, amount: bigint) => em().transactional((tx) => openDeposit(tx, userId, amount, randomUUID()));
const createWithdrawal = (userId: string, amount: bigint, destination: string) =>
  em().transactional((tx) => openWithdrawal(tx, userId, amount, destination, randomUUID()));

async function newUser(): Promise<string> {
  const id = randomUUID();
  await db(em())
    .insertInto('users')
    .values({ id, wallet_address: `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}` })
    .execute();
  return id;
}

const outboxOf = async (ids: string[]) =>
  (await db(em()).selectFrom('operation_outbox').select('operation_id').where('operation_id', 'in', ids).execute()).length;

describe('settleOperations (one transaction for a batch)', () => {
  it('settles deposits and withdrawals, spends each demo balance in id order, refunds a failed withdrawal, and skips what is final or unknown', async () => {
    const [a, b] = [await newUser(), await newUser()];
    // a's first deposit of 600 leaves 400 of the demo balance of 1000: of two more deposits of 300 in one batch,
    // exactly one fits (the first in id order, the order the batch settles in).
    const first = await createDeposit(a, 600n);
    expect(await settleOperation(em(), adapter, first.id)).toBe('settled');
    const a1 = await createDeposit(a, 300n);
    const a2 = await createDeposit(a, 300n);
    const b1 = await createDeposit(b, 1_000n);
    const missing = randomUUID();

    const out = await settleOperations(em(), adapter, [a1.id, a2.id, b1.id, first.id, missing]);
    // Of a's two deposits of 300 only one fits in the 400 left (the first in id order).
    const [lo, hi] = [a1.id, a2.id].sort();
    expect(out.get(lo!)).toBe('settled');
    expect(out.get(hi!)).toBe('failed');
    expect(out.get(b1.id)).toBe('settled');
    expect(out.get(first.id)).toBe('already_final');
    expect(out.get(missing)).toBe('missing');
    expect((await findOperation(em(), lo!))!.txHash).toBe(demoTxHash(lo!));
    expect((await findOperation(em(), hi!))!).toMatchObject({ status: 'failed', failureCode: 'SETTLEMENT_FAILED', txHash: null });
    expect((await userBalances(em(), a)).available).toBe(900n);
    expect((await userBalances(em(), b)).available).toBe(1_000n);
    expect(await outboxOf([a1.id, a2.id, b1.id, first.id])).toBe(0);

    // Withdrawals in one batch: one settles, one the demo settlement fails is refunded.
    const ok = await createWithdrawal(b, 400n, `0x${'1'.repeat(40)}`);
    const bad = await createWithdrawal(b, 100n, DEMO_FAILING_DESTINATION);
    expect(await userBalances(em(), b)).toMatchObject({ available: 500n, reserved: 500n });
    const w = await settleOperations(em(), adapter, [bad.id, ok.id]);
    expect([w.get(ok.id), w.get(bad.id)]).toEqual(['settled', 'failed']);
    expect(await userBalances(em(), b)).toMatchObject({ available: 600n, reserved: 0n });

    // A rerun of the whole batch changes nothing.
    const again = await settleOperations(em(), adapter, [a1.id, a2.id, b1.id, ok.id, bad.id]);
    expect([...again.values()].every((o) => o === 'already_final')).toBe(true);
    expect((await userBalances(em(), a)).available).toBe(900n);
    expect(await checkLedger(em())).toEqual([]);
  });

  it('two batches holding the same operations at once settle each exactly once', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser()));
    const ops = await Promise.all(users.map((u) => createDeposit(u, 10n)));
    const ids = ops.map((o) => o.id);
    const [x, y] = await Promise.all([settleOperations(em(), adapter, ids), settleOperations(em(), adapter, [...ids].reverse())]);
    for (const id of ids) expect([x.get(id), y.get(id)].sort()).toEqual(['already_final', 'settled']);
    for (const u of users) expect((await userBalances(em(), u)).available).toBe(10n);
    expect(await checkLedger(em())).toEqual([]);
  });
});
