// `npm run ledger:check`: verifies the ledger (every transaction sums to zero, every balance equals the sum
// of its entries, no negative user balance). Exit 0 when the books are right, 1 with the problems listed.
// Reads only. With DATABASE_URL it reads that PostgreSQL database (the service may be running); without
// it, the embedded PGlite database in DATA_DIR (default .data), which serves one process at a time: it
// takes the DATA_DIR lock like the service does, so it runs only while the service is stopped (exit 75).
// With SETTLEMENT_MODE=onchain (and the service's chain settings) it also reads the chain: the USDC the
// settlement wallet (and unswept deposit addresses, and the cold wallet) hold against what the books owe; it prints a second
// line with the surplus or deficit and fails on a deficit (src/domain/settlement/onchain/reconcile.ts).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config/load.js';
import { checkLedgerWith } from '../src/domain/ledger/ledger.js';
import { createChain } from '../src/adapters/chain/chain.js';
import { reconcile } from '../src/domain/settlement/onchain/reconcile.js';
import { DataDirLockedError, lockDataDir, openEmbeddedDatabase } from '../src/db/pglite.js';
import { ledgerCheckRepository, singleConnectionDb, type SqlRunner } from '../src/db/repositories/ledger-check.repository.js';

/** The check over `runner` (this script's own connection), through the ledger check's repository. */
async function check(runner: SqlRunner): Promise<number> {
  const repo = ledgerCheckRepository(singleConnectionDb(runner));
  const counts = await repo.counts();
  const problems = await checkLedgerWith(repo);
  process.stdout.write(`${JSON.stringify({ ...counts, problems })}\n`);
  const config = process.env.SETTLEMENT_MODE === 'onchain' ? loadConfig(process.env) : undefined;
  const chainSettings = config?.chain;
  if (!chainSettings) return problems.length ? 1 : 0;
  const { coldWalletAddress, hotWalletMaxMicros } = config.custody;
  const chain = createChain(chainSettings);
  try {
    const cold = coldWalletAddress && hotWalletMaxMicros !== null ? { address: coldWalletAddress } : undefined;
    const onchain = await reconcile(chain, repo, cold);
    process.stdout.write(`${JSON.stringify({ onchain })}\n`);
    if (onchain.deficit)
      process.stderr.write(
        `ledger:check: DEFICIT: the chain holds ${onchain.held_micros} micros (${onchain.uncredited_micros} of them uncredited), users can withdraw ${onchain.owed_micros}\n`,
      );
    return problems.length || onchain.deficit ? 1 : 0;
  } finally {
    await chain.close();
  }
}

async function checkPostgres(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await check(client);
  } finally {
    await client.end();
  }
}

async function checkEmbedded(dataDir: string): Promise<number> {
  const dir = resolve(dataDir);
  if (!existsSync(join(dir, 'pglite'))) {
    process.stderr.write(
      `ledger:check: no embedded database in ${dir} (start the service once with npm start, or set DATA_DIR or DATABASE_URL)\n`,
    );
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
    return await check(db);
  } finally {
    await db.close();
    release();
  }
}

const url = process.env.DATABASE_URL?.trim();
process.exitCode = url ? await checkPostgres(url) : await checkEmbedded(process.env.DATA_DIR || '.data');
