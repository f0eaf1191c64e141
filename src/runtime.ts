// Opens what every process role needs (database, migrations, queue backend) for one of the three
// deployments, and closes it in reverse order. Shared by the API, the workers and the tests.
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { Config } from './config/types.js';
import type { Logger } from './logger.js';
import { createOrm, migrate, pendingMigrations, type Orm } from './db/orm.js';
import { lockDataDir, openEmbeddedDatabase } from './db/pglite.js';
import { createQueueBackend, type QueueBackend } from './jobs/queue-backend.js';
import type { Bus } from './bus/bus.js';
import { createBus } from './bus/create.js';
import { assertSignatureBackend } from './domain/signatures/recover.js';
import { readDeploymentId } from './bus/deployment.js';
import { db } from './db/schema.js';

export interface Runtime {
  readonly config: Readonly<Config>;
  readonly logger: Logger;
  readonly orm: Orm;
  readonly queues: QueueBackend;
  /** Cross-process notifications (src/bus): Redis, PostgreSQL LISTEN/NOTIFY or in-process. */
  readonly bus: Bus;
  readonly pglite: PGlite | undefined;
  close(): Promise<void>;
}

/** Start-up refused: this process does not migrate (MIGRATE_ON_START=false) and the database is behind the code. */
export class PendingMigrationsError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `${pending.length} database migration(s) pending (${pending.join(', ')}); this process does not migrate (MIGRATE_ON_START=false): ` +
        'run the migration step first (node dist/src/migrate.js, or npm run db:migrate), then start it again',
    );
    this.name = 'PendingMigrationsError';
  }
}

export interface RuntimeOptions {
  /** Apply pending migrations (default: config.migrateOnStart); otherwise refuse to open while any is pending. */
  migrate?: boolean;
}

const MIGRATION_LOCK_KEY = 0x63726671; // 'crfq': serialises migrations of several processes on one database

export async function openRuntime(config: Readonly<Config>, logger: Logger, opts: RuntimeOptions = {}): Promise<Runtime> {
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) {
      try {
        await c();
      } catch (err) {
        logger.warn({ err }, 'error while closing a resource');
      }
    }
  };
  try {
    // Refuses to start without the native secp256k1 addon (src/domain/signatures/recover.ts).
    logger.info({ signature_backend: assertSignatureBackend() }, 'signature recovery self-test passed');
    let pglite: PGlite | undefined;
    if (config.deployment === 'embedded') {
      closers.push(lockDataDir(config.dataDir));
      pglite = await openEmbeddedDatabase(config.dataDir);
      const db = pglite;
      closers.push(() => db.close());
      logger.info({ data_dir: config.dataDir }, 'embedded PGlite database opened (single process; set DATABASE_URL for more)');
    }
    const orm = await createOrm({
      databaseUrl: config.databaseUrl,
      pglite,
      preparedStatements: config.databasePreparedStatements,
      poolMax: config.databasePoolMax,
    });
    closers.push(() => orm.close(true));
    if (opts.migrate ?? config.migrateOnStart) {
      const applied = await withMigrationLock(config.databaseUrl, () => migrate(orm));
      if (applied.length) logger.info({ migrations: applied }, 'database migrations applied');
    } else {
      const pending = await pendingMigrations(orm);
      if (pending.length) throw new PendingMigrationsError(pending);
    }
    const deploymentId = await readDeploymentId(db(orm.em.fork()));
    // The bus first: on PostgreSQL alone its start-up probe refuses a LISTEN connection through a transaction-mode
    // pooler with a message saying so (src/bus/pg.ts), before the queue backend would fail on it less clearly.
    const bus = await createBus({
      prefix: config.queuePrefix,
      deploymentId,
      redisUrl: config.redisUrl,
      databaseUrl: config.databaseUrl,
      listenUrl: config.databaseListenUrl,
      onError: (err, context) => logger.warn({ err, context }, 'bus: message lost (at-most-once; the database stays the truth)'),
    });
    closers.push(() => bus.close());
    const queues = await createQueueBackend({
      prefix: config.queuePrefix,
      redisUrl: config.redisUrl,
      // BullMQ's PostgreSQL backend needs sessions (its LISTEN, session advisory locks, a search_path startup
      // option): the direct connection when DATABASE_URL goes through a pooler (docs/operations.md).
      databaseUrl: config.databaseListenUrl ?? config.databaseUrl,
      pglite,
    });
    closers.push(() => queues.close());
    logger.info(
      { deployment: config.deployment, deployment_id: deploymentId, queue_backend: queues.kind, bus_backend: bus.kind },
      'runtime ready',
    );
    return { config, logger, orm, queues, bus, pglite, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

async function withMigrationLock<T>(databaseUrl: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!databaseUrl) return fn(); // embedded: the DATA_DIR lock already makes us the only process
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await fn();
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
