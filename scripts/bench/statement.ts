// `npx tsx scripts/bench/statement.ts [postings]` (default 100,000; about 2 min): the user's statement
// (GET /v1/users/ledger's domain call, src/domain/ledger/statement.ts) on a migrated database of its own. One
// user with `postings` movements on two balances (a market maker's shape: four entries per posting, two of
// them another user's, spread over 50,000 other accounts, so the planner, which estimates an account from the average, expects a handful) and one
// user with a single deposit. Pages of 50: page 1, 10 and 1,000 (p50 / p90 of 20), a whole walk (ms per
// page), and the scan statement alone at page 10, planned with its values (unnamed statements), with and
// without bitmap scans (what preferOrderedScans prevents: reading every entry of the account through a
// bitmap, then sorting).
import { sql } from 'kysely';
import { createOrm } from '../../src/db/orm.js';
import { db } from '../../src/db/schema.js';
import { statementRepository } from '../../src/db/repositories/statement.repository.js';
import { lockUserBalances, userBalances } from '../../src/domain/ledger/ledger.js';
import { decodePosition, ledgerStatement } from '../../src/domain/ledger/statement.js';
import { cursorKey } from '../../src/domain/keyset-cursor.js';
import { fundedUser } from '../../src/testing/funding.js';
import { migratedOrm } from '../../src/testing/orm.js';

const N = Number(process.argv[2] ?? 100_000);
const t = await migratedOrm('stbench');
const em = () => t.orm.em.fork();

async function p50p90(label: string, f: () => Promise<unknown>, reps = 20) {
  const ts: number[] = [];
  for (let i = 0; i < reps; i++) {
    const s = performance.now();
    await f();
    ts.push(performance.now() - s);
  }
  ts.sort((a, b) => a - b);
  console.log(`${label}: p50 ${ts[Math.floor(reps / 2)]!.toFixed(2)} ms, p90 ${ts[Math.floor(reps * 0.9)]!.toFixed(2)} ms`);
}

/** `n` postings of `u`, 500 per statement: alternately available -> reserved and back, each with two entries of others. */
async function seed(u: string, other: string, n: number) {
  await em().transactional((tx) => lockUserBalances(tx, [u, other], ['user_available', 'user_reserved', 'user_app_token']));
  await sql`insert into users (id, wallet_address) select gen_random_uuid(), '0x' || lpad(to_hex(g), 40, '0') from generate_series(1000, 50999) g`.execute(
    db(em()),
  );
  await sql`insert into ledger_accounts (user_id, kind) select u.id, 'user_reserved' from users u where u.id not in (${u}, ${other})`.execute(
    db(em()),
  );
  const noise = (
    await sql<{
      id: string;
    }>`select id::text from ledger_accounts where kind = 'user_reserved' and user_id not in (${u}, ${other})`.execute(db(em()))
  ).rows.map((r) => r.id);
  const acc = await db(em()).selectFrom('ledger_accounts').select(['id', 'kind', 'user_id']).where('user_id', 'in', [u, other]).execute();
  const id = (user: string, kind: string) => acc.find((a) => a.user_id === user && a.kind === kind)!.id;
  const [av, rs, oav] = [id(u, 'user_available'), id(u, 'user_reserved'), id(other, 'user_available')];
  for (let b = 0; b < n; b += 500) {
    await sql`
      with txs as (insert into ledger_transactions (id, kind, reference)
         select gen_random_uuid(), case when g % 2 = 0 then 'contest_entry' else 'contest_refund' end, g::text
           from generate_series(${b}::int, ${Math.min(n, b + 500) - 1}::int) g returning id, reference)
      insert into ledger_entries (transaction_id, account_id, amount)
      select id, a, m from (
        select txs.id, r.n, r.a, r.m from txs, lateral (values
           (1, case when txs.reference::int % 2 = 0 then ${av}::int8 else ${rs}::int8 end, -1::int8),
           (2, ${oav}::int8, -1::int8),
           (3, (${noise}::int8[])[1 + (txs.reference::int % ${noise.length})], 1::int8),
           (4, case when txs.reference::int % 2 = 0 then ${rs}::int8 else ${av}::int8 end, 1::int8)) as r(n, a, m)
        order by txs.reference::int, r.n) x`.execute(db(em()));
  }
  await sql`analyze`.execute(db(em()));
}

try {
  const u = await fundedUser(em, `0x${'1'.repeat(40)}`, 10n ** 12n);
  const other = await fundedUser(em, `0x${'2'.repeat(40)}`, 10n ** 12n);
  const sparse = await fundedUser(em, `0x${'3'.repeat(40)}`, 5n);
  const t0 = performance.now();
  await seed(u, other, N);
  console.log(`seeded ${N} postings (${4 * N} entries) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  await p50p90('page 1 (limit 50)', () => ledgerStatement(em(), u, { limit: 50 }));
  const at: Record<number, string> = {};
  let cursor: string | undefined;
  let pages = 0;
  const start = performance.now();
  do {
    const p = await ledgerStatement(em(), u, { limit: 50, cursor });
    pages++;
    cursor = p.nextCursor ?? undefined;
    if (cursor) at[pages + 1] = cursor;
  } while (cursor);
  console.log(
    `walked ${pages} pages in ${((performance.now() - start) / 1000).toFixed(1)} s: ${((performance.now() - start) / pages).toFixed(2)} ms per page`,
  );
  for (const n of [10, 1000]) if (at[n]) await p50p90(`page ${n}`, () => ledgerStatement(em(), u, { limit: 50, cursor: at[n] }));
  await p50p90('a user with one deposit, page 1', () => ledgerStatement(em(), sparse, { limit: 50 }));

  const position = decodePosition(await cursorKey(em()), u, at[10]!);
  const accounts = (await statementRepository(db(em())).accounts(u)).map((a) => ({
    id: a.id,
    upTo:
      a.kind === 'user_available' ? position.upTo.available : a.kind === 'user_reserved' ? position.upTo.reserved : position.upTo.appToken,
  }));
  // Unnamed statements (DATABASE_PREPARED_STATEMENTS=0, as behind PgBouncer): planned with each call's values.
  const unnamed = await createOrm({ databaseUrl: t.db.url, preparedStatements: 0 });
  for (const ordered of [true, false]) {
    await p50p90(`scan of page 10 alone, unnamed statements, bitmap scans ${ordered ? 'off' : 'allowed'}`, () =>
      unnamed.em.fork().transactional(async (tx) => {
        const repo = statementRepository(db(tx));
        if (ordered) await repo.preferOrderedScans();
        await repo.scan(accounts, position.before, 102);
      }),
    );
  }
  await p50p90('page 10, unnamed statements', () => ledgerStatement(unnamed.em.fork(), u, { limit: 50, cursor: at[10] }));
  await p50p90('a user with one deposit, page 1, unnamed statements', () => ledgerStatement(unnamed.em.fork(), sparse, { limit: 50 }));
  await unnamed.close(true);
  console.log('balances', await userBalances(em(), u));
} finally {
  await t.close();
}
