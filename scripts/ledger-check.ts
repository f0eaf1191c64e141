// `npm run ledger:check`: verifies the ledger of DATABASE_URL (every transaction sums to zero, every
// balance equals the sum of its entries, no negative user balance). Exit 0 when the books are right,
// 1 with the problems listed otherwise. Reads only.
import pg from 'pg';
import { checkLedgerWith } from '../src/domain/ledger/ledger.js';

const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('ledger:check needs DATABASE_URL (the embedded PGlite database is checked by the tests)\n');
  process.exit(64);
}
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const counts = (await client.query('select (select count(*) from ledger_transactions)::int as transactions, (select count(*) from ledger_entries)::int as entries, (select count(*) from ledger_accounts)::int as accounts')).rows[0];
  const problems = await checkLedgerWith(async <T>(sql: string) => (await client.query(sql)).rows as T);
  process.stdout.write(`${JSON.stringify({ ...counts, problems })}\n`);
  process.exitCode = problems.length ? 1 : 0;
} finally {
  await client.end();
}
