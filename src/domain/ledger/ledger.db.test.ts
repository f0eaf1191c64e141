// Medium tier: the ledger's repository SQL on real PostgreSQL, inside the caller's transaction.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { db } from '../../db/schema.js';
import { checkLedger, InsufficientBalance, post, userBalances } from './ledger.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('ledger');
});
afterAll(async () => t?.close());

async function newUser(): Promise<string> {
  const id = randomUUID();
  await db(t.orm.em.fork())
    .insertInto('users')
    .values({ id, wallet_address: `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}` })
    .execute();
  return id;
}

describe('ledger repository', () => {
  it('posts set-based entries, creates accounts and pots on first use, and keeps the books balanced', async () => {
    const [a, b] = [await newUser(), await newUser()];
    const contest = randomUUID();
    await db(t.orm.em.fork())
      .insertInto('contests')
      .values({
        id: contest,
        title: 't',
        category: 'sports',
        game_type: 'lineups',
        bet_amount: '1',
        protocol_prize_pool: '0',
        entry_cap: 1,
        betting_closes_ms: '1',
        bet_type_kind: 'num_bets',
        bet_type_value: 1,
        winning_split_bps: [10000],
        entry_visibility: 'visible',
        created_at_ms: '1',
      })
      .execute();
    await t.orm.em.fork().transactional((tx) =>
      post(tx, {
        kind: 'deposit',
        reference: 'r1',
        entries: [
          { account: { system: 'settlement_clearing' }, amount: -5_000_000_000_000n },
          { account: { userId: a, kind: 'user_available' }, amount: 5_000_000_000_000n },
        ],
      }),
    );
    const after = await t.orm.em.fork().transactional((tx) =>
      post(tx, {
        kind: 'move',
        reference: 'r2',
        entries: [
          { account: { userId: a, kind: 'user_available' }, amount: -300n },
          { account: { pot: contest }, amount: 300n },
          { account: { pot: contest }, amount: -300n },
          { account: { userId: b, kind: 'user_available' }, amount: 300n },
        ],
      }),
    );
    expect(after.get(`${a}:user_available`)).toBe(4_999_999_999_700n);
    expect(await userBalances(t.orm.em.fork(), b)).toEqual({ available: 300n, reserved: 0n, appToken: 0n });
    expect(await checkLedger(t.orm.em.fork())).toEqual([]);
  });

  it('refuses to take a user balance below zero and writes nothing (the transaction rolls back)', async () => {
    const a = await newUser();
    await expect(
      t.orm.em.fork().transactional((tx) =>
        post(tx, {
          kind: 'x',
          reference: 'r',
          entries: [
            { account: { userId: a, kind: 'user_available' }, amount: -1n },
            { account: { system: 'treasury' }, amount: 1n },
          ],
        }),
      ),
    ).rejects.toBeInstanceOf(InsufficientBalance);
    expect(await db(t.orm.em.fork()).selectFrom('ledger_accounts').select('id').where('user_id', '=', a).execute()).toEqual([]);
  });

  it('the database refuses at COMMIT a transaction whose entries do not sum to zero, however they were inserted', async () => {
    const accounts = await db(t.orm.em.fork()).selectFrom('ledger_accounts').select('id').where('user_id', 'is', null).execute();
    const [x, y] = accounts.map((r) => r.id);
    const insert = async (amounts: number[][]) =>
      t.orm.em.fork().transactional(async (tx) => {
        const id = randomUUID();
        const k = db(tx);
        await k.insertInto('ledger_transactions').values({ id, kind: 'probe', reference: 'probe' }).execute();
        // One statement per group: the check must still see every entry of the transaction at COMMIT.
        for (const group of amounts) {
          await k
            .insertInto('ledger_entries')
            .values(group.map((amount, i) => ({ transaction_id: id, account_id: i % 2 ? x! : y!, amount: String(amount) })))
            .execute();
        }
      });
    await expect(insert([[5, -3], [-1]])).rejects.toMatchObject({ message: expect.stringContaining('does not sum to zero (sum 1)') });
    const many = Array.from({ length: 2000 }, (_, i) => (i % 2 ? 1 : -1)); // sums to 0
    await expect(insert([[-2], many, [3]])).rejects.toMatchObject({ message: expect.stringContaining('(sum 1)') });
    await insert([[-2], many, [2]]);
    await insert([[-4, 1], [1, 1], [1]]);
    expect(await checkLedger(t.orm.em.fork())).toEqual([]);
  });
});
