// The medium tier (*.db.test.ts): repositories and rules in-process against a real, migrated PostgreSQL
// database of their own (no HTTP, no service process).
import { createOrm, migrate, type Orm } from '../db/orm.js';
import { createTestDatabase, type CreateOptions, type TestDatabase } from './postgres.js';

export interface MigratedOrm {
  orm: Orm;
  db: TestDatabase;
  close(): Promise<void>;
}

/** A clone of the migrated template (src/testing/template-db.ts); `{ empty: true }` runs every migration here. */
export async function migratedOrm(label: string, opts: CreateOptions = {}): Promise<MigratedOrm> {
  const db = await createTestDatabase(label, undefined, opts);
  const orm = await createOrm({ databaseUrl: db.url });
  await migrate(orm);
  return {
    orm,
    db,
    async close() {
      await orm.close(true);
      await db.drop();
    },
  };
}
