// `npm run prices:verify -- <market_id> [<market_id>...]` (built: `node dist/scripts/prices-verify.js <market_id>...`):
// re-checks RFQ windows' resolutions (docs/prices.md, "Checking a resolution"). For each window it fetches every
// observation recorded with it again from its source, by the source's own identifier, with the deployment's
// settings (the same environment as the service: PRICE_FEED, the sources' URLs, symbols and keys, CHAIN_RPC_URL;
// a source's shared circuit is honoured), compares it with what was stored, recomputes the votes and the quorum,
// and prints agreement or the difference, line by line.
// Exit 0 when every window agrees; 1 when one differs; 2 when some observation could not be fetched and none
// differs; 64 on bad arguments; 75 when the embedded database is open by the service (stop it first).
// Reads only. With DATABASE_URL it reads that PostgreSQL database (the service may be running); without it, the
// embedded PGlite database in DATA_DIR, which serves one process at a time (as npm run ledger:check).
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { createOrm, type Orm } from '../src/db/orm.js';
import { DataDirLockedError, lockDataDir, openEmbeddedDatabase } from '../src/db/pglite.js';
import { createPriceFeeds } from '../src/domain/prices/create.js';
import { formatVerification, verifyWindow } from '../src/domain/markets/window-verify.js';
import { createPriceCircuit } from '../src/jobs/price-circuit.js';

const ids = process.argv.slice(2).filter((a) => a !== '--');
if (!ids.length || ids.some((a) => !/^\d{1,15}$/.test(a))) {
  process.stderr.write('usage: npm run prices:verify -- <market_id> [<market_id>...]\n');
  process.exit(64); // EX_USAGE
}

async function verify(orm: Orm): Promise<number> {
  const config = loadConfig(process.env);
  const forkEm = () => orm.em.fork();
  const circuit = createPriceCircuit({ redisUrl: config.redisUrl, prefix: config.queuePrefix, forkEm });
  try {
    // Every source the deployment can configure, not only PRICE_FEED's: a window decided under another PRICE_FEED is re-checked too.
    const feeds = createPriceFeeds(
      {
        ...config.prices,
        sources: (['demo', 'pyth', 'binance', 'okx', 'coinbase', 'chainlink'] as const).filter(
          (s) => s !== 'chainlink' || config.prices.chainlink.rpcUrl,
        ),
      },
      { circuit: circuit.circuit },
    );
    let worst = 0;
    for (const id of ids) {
      const v = await verifyWindow(forkEm(), feeds, Number(id)).catch((err: unknown) => {
        process.stdout.write(`market ${id}: ${(err as Error).message}\n  => differs\n`);
        return null;
      });
      if (!v) {
        worst = 3;
        continue;
      }
      process.stdout.write(`${formatVerification(v).join('\n')}\n`);
      worst = Math.max(worst, v.verdict === 'differs' ? 3 : v.verdict === 'unchecked' ? 2 : 0);
    }
    return worst === 3 ? 1 : worst;
  } finally {
    await circuit.close();
  }
}

async function main(): Promise<number> {
  const url = process.env.DATABASE_URL?.trim();
  if (url) {
    const orm = await createOrm({ databaseUrl: url });
    try {
      return await verify(orm);
    } finally {
      await orm.close(true);
    }
  }
  const dir = resolve(process.env.DATA_DIR || '.data');
  let release: () => void;
  try {
    release = lockDataDir(dir);
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    process.stderr.write(
      `prices:verify: ${err.message}\nThe embedded database can be opened by one process only: stop the service, then run it again.\n`,
    );
    return 75; // EX_TEMPFAIL
  }
  const pglite = await openEmbeddedDatabase(dir);
  const orm = await createOrm({ pglite });
  try {
    return await verify(orm);
  } finally {
    await orm.close(true);
    await pglite.close();
    release();
  }
}

try {
  process.exitCode = await main();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`prices:verify: ${err.message}\n`);
  process.exitCode = 78; // EX_CONFIG
}
