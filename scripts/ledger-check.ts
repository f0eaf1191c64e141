// `npm run ledger:check`: verifies the ledger (every transaction sums to zero, every balance equals the sum
// of its entries, no negative user balance). Exit 0 when the books are right, 1 with the problems listed.
// Reads only. With DATABASE_URL it reads that PostgreSQL database (the service may be running); without
// it, the embedded PGlite database in DATA_DIR (default .data), which serves one process at a time: it
// takes the DATA_DIR lock like the service does, so it runs only while the service is stopped (exit 75).
// With SETTLEMENT_MODE=onchain (and the service's chain settings) it also reads the chain: the USDC the
// settlement wallet (and unswept deposit addresses) hold against what the books owe; it prints a second
// line with the surplus or deficit and fails on a deficit (src/domain/settlement/onchain/reconcile.ts).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { checkLedgerWith } from '../src/domain/ledger/ledger.js';
import { createChain } from '../src/domain/settlement/onchain/chain.js';
import { reconcile } from '../src/domain/settlement/onchain/reconcile.js';
import { unsweptDepositAddresses } from '../src/domain/settlement/onchain/sweeps.js';
import { DataDirLockedError, lockDataDir, openEmbeddedDatabase } from '../src/db/pglite.js';

type Query = <T>(sql: string) => Promise<T>;

const COUNTS =
  'select (select count(*) from ledger_transactions)::int as transactions, (select count(*) from ledger_entries)::int as entries, (select count(*) from ledger_accounts)::int as accounts';

async function check(query: Query): Promise<number> {
  const [counts] = await query<Array<Record<string, number>>>(COUNTS);
  const problems = await checkLedgerWith(query);
  process.stdout.write(`${JSON.stringify({ ...counts, problems })}\n`);
  const chainSettings = process.env.SETTLEMENT_MODE === 'onchain' ? loadConfig(process.env).chain : undefined;
  if (!chainSettings) return problems.length ? 1 : 0;
  const chain = createChain(chainSettings);
  try {
    const onchain = await reconcile(chain, query, unsweptDepositAddresses);
    process.stdout.write(`${JSON.stringify({ onchain })}\n`);
    if (onchain.deficit)
      process.stderr.write(`ledger:check: DEFICIT: the chain holds ${onchain.held_micros} micros, the books owe ${onchain.liabilities_micros}\n`);
    return problems.length || onchain.deficit ? 1 : 0;
  } finally {
    await chain.close();
  }
}

async function checkPostgres(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await check(async <T>(sql: string) => (await client.query(sql)).rows as T);
  } finally {
    await client.end();
  }
}

async function checkEmbedded(dataDir: string): Promise<number> {
  const dir = resolve(dataDir);
  if (!existsSync(join(dir, 'pglite'))) {
    process.stderr.write(`ledger:check: no embedded database in ${dir} (start the service once with npm start, or set DATA_DIR or DATABASE_URL)\n`);
    return 66; // EX_NOINPUT
  }
  let release: () => void;
  try {
    release = lockDataDir(dir);
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    process.stderr.write(
      `ledger:check: ${err.message}\nThe embedded database (PGlite) can be opened by one process only, and the service has it open: ` +
        'stop the service (Ctrl-C on npm start), then run npm run ledger:check again.\n',
    );
    return 75; // EX_TEMPFAIL
  }
  const db = await openEmbeddedDatabase(dir);
  try {
    return await check(async <T>(sql: string) => (await db.query(sql)).rows as T);
  } finally {
    await db.close();
    release();
  }
}

const url = process.env.DATABASE_URL?.trim();
process.exitCode = url ? await checkPostgres(url) : await checkEmbedded(process.env.DATA_DIR || '.data');
