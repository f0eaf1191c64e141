// The migrated template database (issue 40): built once per vitest run by the global setup
// (src/testing/vitest-global-setup.ts), cloned by createTestDatabase (`create database X template T`), so that no
// test file's service or ORM runs the migrations again. Its name carries a hash of src/db/migrations
// (templateDatabaseName), so a changed migration builds another template; an existing one is reused across
// runs. Several vitest processes (the two lanes of scripts/test.sh) may start at once: an advisory lock lets
// one build while the others wait, and the template appears under its name only once complete.
import pg from 'pg';
import { createOrm, migrate } from '../db/orm.js';
import { ADMIN_URL, templateDatabaseName } from './postgres.js';

async function exists(admin: pg.Client, name: string): Promise<boolean> {
  return (await admin.query('select 1 from pg_database where datname = $1 and datistemplate', [name])).rowCount === 1;
}

async function build(admin: pg.Client, name: string, adminUrl: string): Promise<void> {
  const building = `${name}_building`;
  await admin.query(`drop database if exists "${building}" with (force)`);
  await admin.query(`create database "${building}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${building}`;
  const orm = await createOrm({ databaseUrl: url.toString(), preparedStatements: 0 });
  try {
    await migrate(orm);
  } finally {
    await orm.close(true);
  }
  await admin.query(`alter database "${building}" rename to "${name}"`);
  await admin.query(`alter database "${name}" is_template true allow_connections false`);
}

/** Returns the template's name, building it first when missing; undefined (tests start empty) when that fails. */
export async function ensureTemplateDatabase(adminUrl = ADMIN_URL): Promise<string | undefined> {
  const name = templateDatabaseName();
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
    if (await exists(admin, name)) return name;
    await admin.query('select pg_advisory_lock(hashtext($1))', ['crfq_test_template']);
    try {
      if (!(await exists(admin, name))) await build(admin, name, adminUrl);
    } finally {
      await admin.query('select pg_advisory_unlock(hashtext($1))', ['crfq_test_template']);
    }
    return name;
  } catch (err) {
    process.stderr.write(`test template database not built (${(err as Error).message}); test databases start empty\n`);
    return undefined;
  } finally {
    await admin.end().catch(() => undefined);
  }
}
