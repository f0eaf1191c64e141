// Named statements on real PostgreSQL (src/db/prepared.ts): the ORM's parameterised statements are prepared
// once per connection and reused, unparameterised ones are not, the registry stops naming at its limit, an
// error in a named statement leaves the connection usable, and DATABASE_PREPARED_STATEMENTS=0 prepares nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createOrm, migrate, type Em, type Orm } from './orm.js';
import { StatementNames } from './prepared.js';
import { db } from './schema.js';
import { createTestDatabase, type TestDatabase } from '../testing/postgres.js';

let test: TestDatabase;
const orms: Orm[] = [];
beforeAll(async () => {
  test = await createTestDatabase('prepared');
  const orm = await createOrm({ databaseUrl: test.url, preparedStatements: 0 });
  await migrate(orm);
  await orm.close(true);
});
afterAll(async () => {
  for (const orm of orms) await orm.close(true);
  await test?.drop();
});

async function open(preparedStatements?: number): Promise<Orm> {
  const orm = await createOrm({ databaseUrl: test.url, ...(preparedStatements !== undefined && { preparedStatements }) });
  orms.push(orm);
  return orm;
}

/** The statements prepared on the connection the transaction holds. */
const prepared = async (em: Em) =>
  (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db(em))).rows;

const lookup = (em: Em, n: number) => db(em).selectFrom('markets').select('market_id').where('market_id', '=', String(n)).execute();

describe('StatementNames', () => {
  it('names a parameterised text once, leaves texts without parameters unnamed, and stops at its limit', () => {
    const names = new StatementNames(2);
    const a = names.nameOf('select $1', [1]);
    expect(a).toBeDefined();
    expect(names.nameOf('select $1', [2])).toBe(a);
    expect(names.nameOf('begin', [])).toBeUndefined();
    expect(names.nameOf('begin', undefined)).toBeUndefined();
    const b = names.nameOf('select $1, $2', [1, 2]);
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    expect(names.nameOf('select $1, $2, $3', [1, 2, 3])).toBeUndefined();
    expect(names.size).toBe(2);
  });
});

describe('the ORM on PostgreSQL', () => {
  it('prepares a parameterised statement once per connection and reuses it', async () => {
    const orm = await open();
    await orm.em.fork().transactional(async (em) => {
      for (let i = 0; i < 7; i++) await lookup(em, i);
      await sql`select 1`.execute(db(em));
      const mine = (await prepared(em)).filter((p) => p.statement.includes('from "markets"'));
      expect(mine).toHaveLength(1);
      expect((await prepared(em)).some((p) => /select 1\b/.test(p.statement))).toBe(false);
    });
  });

  it('keeps the connection usable after a named statement fails, and runs it again', async () => {
    const orm = await open();
    const insert = (em: Em, id: string) =>
      db(em)
        .insertInto('users')
        .values({ id, privy_sub: `did:privy:${id}`, wallet_address: `0x${id.replace(/-/g, '')}00000000` })
        .returning('id')
        .execute();
    const id = crypto.randomUUID();
    await insert(orm.em.fork(), id);
    await expect(insert(orm.em.fork(), id)).rejects.toThrow(/duplicate key/);
    const other = crypto.randomUUID();
    expect(await insert(orm.em.fork(), other)).toEqual([{ id: other }]);
  });

  it('runs texts past the limit unnamed, and prepares nothing with 0', async () => {
    const one = await open(1);
    await one.em.fork().transactional(async (em) => {
      await lookup(em, 1);
      await db(em).selectFrom('users').select('id').where('privy_sub', '=', 'none').execute();
      expect((await prepared(em)).map((p) => p.statement.includes('from "markets"'))).toEqual([true]);
    });
    const none = await open(0);
    await none.em.fork().transactional(async (em) => {
      await lookup(em, 1);
      expect(await prepared(em)).toEqual([]);
    });
  });
});
