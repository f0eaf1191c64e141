// Medium tier: the user's statement (statement.ts) on real PostgreSQL. A walk at any page size shows the same
// movements, chained and adding up to the balances; a walk is a snapshot (postings committed after its first
// page never enter it); a posting whose entries straddle a page's edge shows once; and under concurrent
// postings on all three balances every walk is chained, has no duplicate and skips nothing older than what it
// shows (src/testing/statement.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../db/schema.js';
import { fundedUser } from '../../testing/funding.js';
import { migratedOrm, type MigratedOrm } from '../../testing/orm.js';
import { expectChained, expectSnapshotOf } from '../../testing/statement.js';
import { randomWallet } from '../../testing/identity.js';
import { InsufficientBalance, lockUserBalances, post, postAll, userBalances, type Posting, type UserAccountKind } from './ledger.js';
import { balancesIn, movementsOf } from './movements.js';
import { ledgerStatement, type Movement } from './statement.js';
import type { LedgerKind } from './kinds.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('statement');
});
afterAll(async () => t?.close());

const em = () => t.orm.em.fork();
const newUser = (micros = 0n) => fundedUser(em, randomWallet().address.toLowerCase(), micros);

/** `amount` from one of the user's balances to another, as one posting. */
const move = (userId: string, from: UserAccountKind, to: UserAccountKind, amount: bigint, kind: LedgerKind = 'contest_entry') =>
  em().transactional((tx) =>
    post(tx, {
      kind,
      reference: randomUUID(),
      entries: [
        { account: { userId, kind: from }, amount: -amount },
        { account: { userId, kind: to }, amount },
      ],
    }),
  );
const deposit = (userId: string, amount: bigint, reference = randomUUID()) =>
  em().transactional((tx) =>
    post(tx, {
      kind: 'deposit',
      reference,
      entries: [
        { account: { system: 'settlement_clearing' }, amount: -amount },
        { account: { userId, kind: 'user_available' }, amount },
      ],
    }),
  );
const credit = (userId: string, amount: bigint, key = randomUUID(), id = randomUUID()) =>
  em().transactional((tx) =>
    post(tx, {
      id,
      kind: 'app_token_credit',
      reference: `app-token-credit:${key}`,
      entries: [
        { account: { system: 'treasury' }, amount: -amount },
        { account: { userId, kind: 'user_app_token' }, amount },
      ],
    }),
  );

async function walkAll(userId: string, limit: number, between?: () => Promise<void>): Promise<Movement[]> {
  const out: Movement[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledgerStatement(em(), userId, { limit, cursor });
    expect(page.movements.length).toBeLessThanOrEqual(limit);
    out.push(...page.movements);
    cursor = page.nextCursor ?? undefined;
    if (cursor) await between?.();
  } while (cursor);
  return out;
}

async function expectSumsToBalances(userId: string, walk: readonly Movement[]) {
  const b = await userBalances(em(), userId);
  expect(expectChained(walk)).toEqual({ available: b.available, reserved: b.reserved, appToken: b.appToken });
}

describe('the statement', () => {
  it('shows every movement of the user once, newest first, at any page size, chained and adding up to the balances', async () => {
    const [u, other] = [await newUser(), await newUser(1000n)];
    const op = randomUUID();
    await deposit(u, 100n, op);
    await move(u, 'user_available', 'user_reserved', 30n);
    await deposit(other, 5n);
    await move(u, 'user_reserved', 'user_available', 10n, 'contest_refund');
    const key = randomUUID();
    await credit(u, 5n, key);
    await em().transactional((tx) =>
      post(tx, {
        kind: 'contest_payout',
        reference: randomUUID(),
        entries: [
          { account: { userId: u, kind: 'user_reserved' }, amount: -20n },
          { account: { userId: other, kind: 'user_available' }, amount: 20n },
        ],
      }),
    );
    const full = await walkAll(u, 50);
    expect(full.map((m) => m.kind)).toEqual(['contest_payout', 'app_token_credit', 'contest_refund', 'contest_entry', 'deposit']);
    expect(full[1]!.reference).toEqual({ type: 'app_token_credit', id: key });
    expect(full[4]).toMatchObject({ reference: { type: 'operation', id: op }, change: { available: 100n, reserved: 0n, appToken: 0n } });
    expect(full[0]).toMatchObject({
      change: { available: 0n, reserved: -20n, appToken: 0n },
      after: { available: 80n, reserved: 0n, appToken: 5n },
    });
    await expectSumsToBalances(u, full);
    for (const limit of [1, 2, 3]) expect((await walkAll(u, limit)).map((m) => m.id)).toEqual(full.map((m) => m.id));
    // The other user's statement holds the shared posting with its own change.
    expect((await walkAll(other, 2)).map((m) => m.change.available)).toEqual([20n, 5n, 1000n]);
    expect(await ledgerStatement(em(), await newUser(), { limit: 5 })).toEqual({ movements: [], nextCursor: null });
  });

  it('is a snapshot: postings committed after the first page never enter the walk, and a new walk starts with them', async () => {
    const u = await newUser(50n);
    await move(u, 'user_available', 'user_reserved', 20n);
    await credit(u, 7n);
    await deposit(u, 3n);
    const before = await userBalances(em(), u);
    const walk = await walkAll(u, 1, async () => {
      await deposit(u, 1n);
      await move(u, 'user_reserved', 'user_available', 1n, 'contest_refund');
      await credit(u, 1n);
    });
    expect(walk).toHaveLength(4);
    expect(expectChained(walk)).toEqual({ available: before.available, reserved: before.reserved, appToken: before.appToken });
    const fresh = await walkAll(u, 4);
    expect(fresh).toHaveLength(4 + 9); // three rounds of three postings, between the four pages
    expect(fresh.slice(-4).map((m) => m.id)).toEqual(walk.map((m) => m.id));
    await expectSumsToBalances(u, fresh);
  });

  it("shows once a posting whose entries lie on both sides of a page's edge, on the page of its newest entry", async () => {
    const u = await newUser(40n);
    await credit(u, 2n);
    // T writes its available entry, then (while T is open) V credits app tokens, then T writes its reserved entry: V's
    // entry id lies between T's two, so a page that ends with T starts the next one above T's older entry. V's entry
    // is inserted at once but V commits only after T (the user event log's per-user head row, taken by the trigger
    // after each statement: src/db/migrations/Migration20261130010000_user_events.ts), so V runs beside T, not
    // awaited inside it.
    const [tx, v] = [randomUUID(), randomUUID()];
    let racing: Promise<unknown> | undefined;
    await em().transactional(async (e) => {
      const locked = await lockUserBalances(e, [u], ['user_available', 'user_reserved']);
      await db(e).insertInto('ledger_transactions').values({ id: tx, kind: 'contest_entry', reference: randomUUID() }).execute();
      const entry = (kind: UserAccountKind, amount: string) =>
        db(e)
          .insertInto('ledger_entries')
          .values({ transaction_id: tx, account_id: locked.get(`${u}:${kind}`)!.id, amount })
          .execute();
      await entry('user_available', '-15');
      racing = credit(u, 3n, randomUUID(), v);
      await new Promise((r) => setTimeout(r, 200));
      await entry('user_reserved', '15');
    });
    await racing;
    const ids = await db(em())
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .select(['e.id', 'e.transaction_id'])
      .where('e.transaction_id', 'in', [tx, v])
      .where('a.user_id', '=', u)
      .orderBy('e.id')
      .execute();
    expect(ids.map((r) => r.transaction_id)).toEqual([tx, v, tx]);
    for (const limit of [1, 2, 5]) {
      const walk = await walkAll(u, limit);
      expect(walk.map((m) => m.id).slice(0, 2)).toEqual([tx, v]);
      expect(walk[0]!.change).toEqual({ available: -15n, reserved: 15n, appToken: 0n });
      await expectSumsToBalances(u, walk);
    }
  });

  it('under concurrent postings on all three balances, every walk is chained, without duplicates, and skips nothing older', async () => {
    const u = await newUser(1_000n);
    let running = true;
    const rounds = 40;
    const writers = [
      async () => {
        for (let i = 0; i < rounds; i++) await move(u, 'user_available', 'user_reserved', 2n);
      },
      async () => {
        for (let i = 0; i < rounds; i++)
          await move(u, 'user_reserved', 'user_available', 1n, 'contest_refund').catch((err: unknown) => {
            if (!(err instanceof InsufficientBalance)) throw err;
          });
      },
      async () => {
        for (let i = 0; i < rounds; i++) await deposit(u, 1n);
      },
      async () => {
        for (let i = 0; i < rounds; i++) await credit(u, 1n);
      },
    ];
    const walks: Movement[][] = [];
    const reader = async () => {
      while (running) walks.push(await walkAll(u, 3));
    };
    const done = Promise.all(writers.map((w) => w())).finally(() => (running = false));
    await Promise.all([done, reader()]);
    const complete = await walkAll(u, 50);
    await expectSumsToBalances(u, complete);
    expect(walks.length).toBeGreaterThan(0);
    for (const w of walks) {
      expectChained(w);
      expectSnapshotOf(w, complete);
    }
  });

  it('gives the movements that movementsOf builds at posting time from the postings and the balances after them', async () => {
    const [u, other] = [await newUser(90n), await newUser(10n)];
    const before = await userBalances(em(), u);
    const postings: Posting[] = [
      {
        id: randomUUID(),
        kind: 'rfq_reserve',
        reference: randomUUID(),
        entries: [
          { account: { userId: u, kind: 'user_available' }, amount: -40n },
          { account: { userId: u, kind: 'user_reserved' }, amount: 40n },
        ],
      },
      {
        id: randomUUID(),
        kind: 'deposit',
        reference: randomUUID(),
        entries: [
          { account: { system: 'settlement_clearing' }, amount: -3n },
          { account: { userId: other, kind: 'user_available' }, amount: 3n },
        ],
      },
      {
        id: randomUUID(),
        kind: 'position_settle',
        reference: 'window:99',
        entries: [
          { account: { userId: u, kind: 'user_reserved' }, amount: -40n },
          { account: { userId: other, kind: 'user_available' }, amount: -10n },
          { account: { userId: u, kind: 'user_available' }, amount: 50n },
        ],
      },
    ];
    const after = await em().transactional((tx) => postAll(tx, postings));
    const built = movementsOf(u, postings, balancesIn(u, after, before), 0);
    const read = (await ledgerStatement(em(), u, { limit: 2 })).movements;
    expect(built.map(({ atMs: _, ...m }) => m)).toEqual(read.map(({ atMs: _, ...m }) => m));
    expect(built.map((m) => m.reference)).toEqual([{ type: 'market_window', id: '99' }, expect.objectContaining({ type: 'rfq' })]);
  });
});
