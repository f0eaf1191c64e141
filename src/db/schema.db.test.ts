// The entities are the one TypeScript description of the schema; the migrations are the one source of DDL.
// This medium test migrates a fresh database and fails when the two disagree: a table, a column, its type
// or its nullability. It also pins two properties the repositories rely on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migratedOrm, type MigratedOrm } from '../testing/orm.js';
import { BULLMQ_SCHEMA } from './bullmq-schema.js';
import { db } from './schema.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('schema', { empty: true }); // the migrations themselves, from an empty database
});
afterAll(async () => t?.close());

/** MikroORM column types as PostgreSQL's format_type() spells them. */
const PG_NAME: Record<string, string> = { int: 'integer', timestamptz: 'timestamp with time zone', bigserial: 'bigint', serial: 'integer' };
const pgName = (t: string) => PG_NAME[t] ?? t;

type Columns = Record<string, { type: string; nullable: boolean }>;

async function migratedTables(): Promise<Record<string, Columns>> {
  const rows = await t.orm.em.fork().execute<Array<{ table: string; column: string; type: string; nullable: boolean }>>(
    `select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type, not a.attnotnull as nullable
       from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped and c.relname <> 'mikro_orm_migrations'`,
  );
  const out: Record<string, Columns> = {};
  for (const r of rows) (out[r.table] ??= {})[r.column] = { type: r.type, nullable: r.nullable };
  return out;
}

function entityTables(): Record<string, Columns> {
  const out: Record<string, Columns> = {};
  for (const meta of t.orm.getMetadata().getAll().values()) {
    const cols: Columns = (out[meta.tableName] = {});
    for (const prop of meta.props) {
      if (prop.persist === false) continue;
      prop.fieldNames.forEach((f, i) => (cols[f] = { type: pgName(prop.columnTypes[i]!), nullable: prop.nullable === true }));
    }
  }
  return out;
}

describe('entities and migrations', () => {
  it('describe the same tables, columns, types and nullability', async () => {
    // A new table or column in a migration needs its entity in src/db/entities (and the other way round).
    const migrated = await migratedTables();
    expect(Object.keys(migrated).length).toBeGreaterThanOrEqual(19);
    expect(entityTables()).toEqual(migrated);
  });

  it('leave BullMQ alone: schema tooling plans nothing in its schema and drops no table', async () => {
    await t.orm.em
      .fork()
      .execute(`create schema if not exists "${BULLMQ_SCHEMA}"; create table if not exists "${BULLMQ_SCHEMA}".probe (id int primary key)`);
    const plan = await t.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(plan).not.toContain(BULLMQ_SCHEMA);
    expect(plan).not.toMatch(/drop (table|column|schema|trigger|function)/i);
    expect(plan).not.toMatch(/create (table|sequence)|add column/i);
  });
});

describe('em.getKysely()', () => {
  it("runs inside the caller's transaction: its writes roll back with it and are invisible outside until commit", async () => {
    const id = 'kysely_tx_probe';
    const outside = () => db(t.orm.em.fork()).selectFrom('service_keys').select('name').where('name', '=', id).execute();
    await expect(
      t.orm.em.fork().transactional(async (tx) => {
        await db(tx)
          .insertInto('service_keys')
          .values({ name: id, key: Buffer.alloc(16, 1) })
          .execute();
        const [viaEm] = await tx.execute<Array<{ x: string }>>('select pg_current_xact_id()::text as x');
        const { rows } = await sql<{ x: string }>`select pg_current_xact_id()::text as x`.execute(db(tx));
        expect(rows[0]!.x).toBe(viaEm!.x); // one transaction, not two connections
        expect(await db(tx).selectFrom('service_keys').select('name').where('name', '=', id).execute()).toHaveLength(1);
        expect(await outside()).toHaveLength(0);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await outside()).toHaveLength(0);
    await t.orm.em.fork().transactional(async (tx) => {
      await db(tx)
        .insertInto('service_keys')
        .values({ name: id, key: Buffer.alloc(16, 2) })
        .execute();
    });
    expect(await outside()).toHaveLength(1);
  });

  it('returns int8 and timestamptz as text, as the inferred types say', async () => {
    const row = await db(t.orm.em.fork())
      .selectFrom('ledger_accounts')
      .select(['id', 'balance', 'created_at'])
      .where('kind', '=', 'treasury')
      .executeTakeFirstOrThrow();
    expect([typeof row.id, typeof row.balance, typeof row.created_at]).toEqual(['string', 'string', 'string']);
    expect(Number.isNaN(Date.parse(row.created_at))).toBe(false);
  });

  it('binds parameters (a bytea travels as a parameter, not in the SQL text)', () => {
    const q = db(t.orm.em.fork())
      .insertInto('pool_images')
      .values({ id: '00000000-0000-4000-8000-000000000000', content_type: 'image/png', bytes: Buffer.alloc(4), sha256: 'x' })
      .compile();
    expect(q.sql).toBe('insert into "pool_images" ("id", "content_type", "bytes", "sha256") values ($1, $2, $3, $4)');
    expect(q.parameters[2]).toEqual(Buffer.alloc(4));
  });
});
