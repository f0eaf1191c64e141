// Test isolation on the real PostgreSQL server: every test file gets a database of its own.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';

export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

const MIGRATIONS_DIR = fileURLToPath(new URL('../db/migrations/', import.meta.url));

/**
 * The migrated template database of the current migrations: its name carries a hash of every file in
 * src/db/migrations, so a changed or added migration names (and builds) another one. Built once per vitest run
 * by src/testing/template-db.ts (the global setup); databases cloned from it start with every migration applied.
 */
export function templateDatabaseName(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(MIGRATIONS_DIR, file)))
      .update('\0');
  }
  return `crfq_tpl_${hash.digest('hex').slice(0, 16)}`;
}

export interface CreateOptions {
  /**
   * Start from an empty database even when the migrated template exists: for the tests of the migrations
   * themselves (the migration step, pending migrations, the schema they build).
   */
  empty?: boolean;
}

/**
 * A database of its own for a test file: a clone of the migrated template when there is one (a service or
 * migrate() then finds nothing pending), else empty (the service migrates it at start, as before).
 */
export async function createTestDatabase(label = 't', adminUrl = ADMIN_URL, opts: CreateOptions = {}): Promise<TestDatabase> {
  const name = `crfq_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const template = opts.empty ? undefined : templateDatabaseName();
    const ready = template
      ? (await admin.query('select 1 from pg_database where datname = $1 and datistemplate', [template])).rowCount === 1
      : false;
    await admin.query(ready ? `create database "${name}" template "${template}"` : `create database "${name}"`);
    // Test data needs no durability across a crash of the PostgreSQL server: a commit returns without waiting
    // for its WAL flush (fdatasync), still atomic, isolated and visible to every other session at once.
    // About 6-10 ms less per commit on the CI machines' disks; every test commits a lot (requests, jobs, DDL).
    await admin.query(`alter database "${name}" set synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Queue prefixes handed out in this process, removed from Redis by dropQueuePrefixes() (vitest: after each file). */
const prefixes = new Set<string>();

export function uniquePrefix(label: string): string {
  const prefix = `t${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 12)}${randomBytes(3).toString('hex')}`;
  prefixes.add(prefix);
  return prefix;
}

/**
 * Deletes every BullMQ key (`bull:<prefix>_<queue>:...`) of the given prefixes (default: all handed out here
 * so far) from the test Redis, and returns how many went. Call it once the services using them have stopped.
 */
export async function dropQueuePrefixes(which: Iterable<string> = prefixes): Promise<number> {
  const list = [...which];
  if (list.length === 0) return 0;
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  let dropped = 0;
  try {
    await redis.connect();
    for (const prefix of list) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `bull:${prefix}_*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) dropped += await redis.unlink(...keys);
      } while (cursor !== '0');
      prefixes.delete(prefix);
    }
  } catch {
    // no Redis (the PostgreSQL-only runs): nothing to clean
  } finally {
    redis.disconnect();
  }
  return dropped;
}
