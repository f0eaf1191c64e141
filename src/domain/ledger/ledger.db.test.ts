// Medium tier: the ledger's repository SQL on real PostgreSQL, inside the caller's transaction.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { db } from '../../db/schema.js';
import { checkLedger, InsufficientBalance, lockUserBalances, post, postAll, userBalances } from './ledger.js';

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
        kind: 'contest_payout',
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
          kind: 'deposit',
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

  it("draws an entry's id after its account's lock: an entry that waited for the lock is numbered after the one that held it", async () => {
    const a = await newUser();
    await t.orm.em.fork().transactional((tx) =>
      post(tx, {
        kind: 'deposit',
        reference: 'opened',
        entries: [
          { account: { system: 'treasury' }, amount: -1n },
          { account: { userId: a, kind: 'user_available' }, amount: 1n },
        ],
      }),
    );
    // Two system accounts, so that the late posting (clearing, then the user) and the holder's (treasury and the user) share one lock only.
    const [x] = (
      await db(t.orm.em.fork()).selectFrom('ledger_accounts').select('id').where('kind', '=', 'settlement_clearing').execute()
    ).map((r) => r.id);
    const waiting = async (): Promise<boolean> => {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_locks where not granted and locktype = 'transactionid'`.execute(db(t.orm.em.fork()));
      return rows[0]!.n > 0;
    };
    let late: Promise<void> | undefined;
    const lateTx = randomUUID();
    await t.orm.em.fork().transactional(async (holder) => {
      const locked = await lockUserBalances(holder, [a], ['user_available']);
      // A posting that never locked first: its insert waits for the balance trigger's UPDATE of the locked account.
      late = t.orm.em.fork().transactional(async (tx) => {
        await db(tx).insertInto('ledger_transactions').values({ id: lateTx, kind: 'deposit', reference: 'late' }).execute();
        await db(tx)
          .insertInto('ledger_entries')
          .values([
            { transaction_id: lateTx, account_id: x!, amount: '-1' },
            { transaction_id: lateTx, account_id: locked.get(`${a}:user_available`)!.id, amount: '1' },
          ])
          .execute();
      });
      while (!(await waiting())) await new Promise((r) => setTimeout(r, 10));
      await postAll(
        holder,
        [
          {
            kind: 'deposit',
            reference: 'first',
            entries: [
              { account: { system: 'treasury' }, amount: -2n },
              { account: { userId: a, kind: 'user_available' }, amount: 2n },
            ],
          },
        ],
        locked,
      );
    });
    await late;
    const rows = await db(t.orm.em.fork())
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .select(['t.reference'])
      .where('a.user_id', '=', a)
      .orderBy('e.id')
      .execute();
    expect(rows.map((r) => r.reference)).toEqual(['opened', 'first', 'late']);
    expect(await checkLedger(t.orm.em.fork())).toEqual([]);
  });
});
