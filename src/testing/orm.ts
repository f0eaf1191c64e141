// The medium tier (*.db.test.ts): repositories and rules in-process against a real, migrated PostgreSQL
// database of their own (no HTTP, no service process).
import { createOrm, migrate, type Orm } from '../db/orm.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

export interface MigratedOrm {
  orm: Orm;
  db: TestDatabase;
  close(): Promise<void>;
}

export async function migratedOrm(label: string): Promise<MigratedOrm> {
  const db = await createTestDatabase(label);
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
