// One place that knows how to open the ORM on PostgreSQL or on the embedded PGlite instance.
import { MikroORM as PgORM } from '@mikro-orm/postgresql';
import { MikroORM as PgliteORM } from '@mikro-orm/pglite';
import { Migrator } from '@mikro-orm/migrations';
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlDriver, SqlEntityManager } from '@mikro-orm/sql';
import type { PGlite } from '@electric-sql/pglite';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';
import { BULLMQ_SCHEMA } from './bullmq-schema.js';
import { PREPARED_STATEMENTS_DEFAULT } from '../constants.js';
import { preparingClient, StatementNames } from './prepared.js';

/** Both drivers share the SQL entity manager; the domain only sees this. */
export type Em = SqlEntityManager;
export type Orm = MikroORM<AbstractSqlDriver, Em>;

export interface OrmOptions {
  databaseUrl?: string | undefined;
  pglite?: PGlite | undefined;
  debug?: boolean;
  /** PostgreSQL only: at most this many distinct parameterised statements run as named (prepared) ones; 0: none (src/db/prepared.ts). */
  preparedStatements?: number | undefined;
  /** PostgreSQL only: connections in the pool at most (DATABASE_POOL_MAX); default 10. */
  poolMax?: number | undefined;
}

const common = {
  entities,
  extensions: [Migrator],
  migrations: { migrationsList, tableName: 'mikro_orm_migrations', transactional: true, allOrNothing: true, snapshot: false, silent: true },
  // Migrations are the only source of DDL: the entities mirror tables and columns, not indexes, checks,
  // triggers or functions, so MikroORM's schema tooling must never be run against a real database (it would
  // drop them). These options keep its hands off what it would not even plan around: BullMQ's schema (it
  // shares the database) and our hand-written ledger triggers and functions.
  schemaGenerator: {
    skipTables: [],
    skipSchemas: [BULLMQ_SCHEMA],
    ignoreSchema: [BULLMQ_SCHEMA],
    ignoreTriggers: true,
    ignoreRoutines: true,
  },
  allowGlobalContext: false,
  debug: false,
};

export async function createOrm(opts: OrmOptions): Promise<Orm> {
  if (opts.databaseUrl) {
    const prepared = opts.preparedStatements ?? PREPARED_STATEMENTS_DEFAULT;
    const driverOptions = prepared > 0 ? { Client: preparingClient(new StatementNames(prepared)) } : {};
    return (await PgORM.init({
      ...common,
      clientUrl: opts.databaseUrl,
      pool: { min: 0, max: opts.poolMax ?? 10 },
      driverOptions,
    })) as unknown as Orm;
  }
  if (opts.pglite) {
    return (await PgliteORM.init({ ...common, dbName: 'embedded', driverOptions: { pglite: opts.pglite } })) as unknown as Orm;
  }
  throw new Error('createOrm needs databaseUrl or a PGlite instance');
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}

export async function pendingMigrations(orm: Orm): Promise<string[]> {
  return (await orm.migrator.getPending()).map((m) => m.name);
}
