// Every repository query compiled with sample parameters, as Immich snapshots its repositories' SQL:
// `npm run sql:snapshot` writes them to src/queries/<feature>.sql, review them like generated code, and
// `npm test` fails when a repository's SQL changed without a new snapshot. The benches replay these.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { DB, Db } from '../schema.js';
import { CONTESTS_CATALOG } from './snapshot-contests.js';
import { CUSTODY_CATALOG } from './snapshot-custody.js';
import { MONEY_CATALOG } from './snapshot-money.js';
import { PLATFORM_CATALOG } from './snapshot-platform.js';
import { PRICES_CATALOG } from './snapshot-prices.js';
import { TRADING_CATALOG } from './snapshot-trading.js';

export interface CompiledQuery {
  /** `Repository.method` (with a suffix when one method issues several statements or has variants). */
  name: string;
  sql: string;
  parameters: readonly unknown[];
}

/** Sample calls per feature file. Each call may issue several statements (all are recorded, in order). */
const CATALOG: Record<string, Array<[string, (db: Db) => Promise<unknown>]>> = {
  ...MONEY_CATALOG,
  ...CONTESTS_CATALOG,
  ...PLATFORM_CATALOG,
  ...TRADING_CATALOG,
  ...PRICES_CATALOG,
  ...CUSTODY_CATALOG,
};

/** A Kysely that compiles and records every statement and runs none (each returns no rows). */
function recordingDb(out: Array<{ sql: string; parameters: readonly unknown[] }>): Db {
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (e) => {
      out.push({ sql: e.query.sql, parameters: e.query.parameters });
    },
  });
}

/** Every catalogued query, by feature file. */
export async function compileRepositoryQueries(): Promise<Record<string, CompiledQuery[]>> {
  const out: Record<string, CompiledQuery[]> = {};
  for (const [feature, calls] of Object.entries(CATALOG)) {
    const list: CompiledQuery[] = (out[feature] = []);
    for (const [name, call] of calls) {
      const seen: Array<{ sql: string; parameters: readonly unknown[] }> = [];
      await call(recordingDb(seen)).catch(() => undefined); // no rows: executeTakeFirstOrThrow throws after the query ran
      seen.forEach((q, i) => list.push({ name: seen.length > 1 ? `${name} #${i + 1}` : name, ...q }));
    }
  }
  return out;
}
