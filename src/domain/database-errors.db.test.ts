// Medium tier: errors raised by real statements (Kysely through MikroORM's connection, and em.execute)
// reach the one SQLSTATE mapper with their code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migratedOrm, type MigratedOrm } from '../testing/orm.js';
import { db } from '../db/schema.js';
import { fromDatabaseError } from './database-errors.js';

let t: MigratedOrm;
beforeAll(async () => {
  t = await migratedOrm('dberrors');
});
afterAll(async () => t?.close());

const caught = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a database error');
    },
    (err: unknown) => err,
  );

describe('database errors from real statements', () => {
  it('a unique violation from Kysely and from em.execute maps to 409 CONFLICT', async () => {
    const insert = () =>
      db(t.orm.em.fork())
        .insertInto('service_keys')
        .values({ name: 'dup', key: Buffer.alloc(16) })
        .execute();
    await insert();
    expect(fromDatabaseError(await caught(insert()))).toMatchObject({ status: 409, code: 'CONFLICT' });
    const viaEm = caught(
      t.orm.em.fork().execute(`insert into service_keys (name, key) values ('dup', '\\x00000000000000000000000000000000')`),
    );
    expect(fromDatabaseError(await viaEm)).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  it('a NOWAIT lock conflict (55P03) maps to 409 IDEMPOTENCY_REQUEST_IN_PROGRESS', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = t.orm.em.fork().transactional(async (tx) => {
      await sql`select 1 from ledger_accounts where kind = 'treasury' for update`.execute(db(tx));
      locked();
      await held;
    });
    await isLocked;
    const err = await caught(
      t.orm.em.fork().transactional((tx) => sql`select 1 from ledger_accounts where kind = 'treasury' for update nowait`.execute(db(tx))),
    );
    release();
    await holder;
    expect(fromDatabaseError(err)).toMatchObject({ status: 409, code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' });
  });

  it('the user balance check maps to 422 INSUFFICIENT_BALANCE; another check violation stays unmapped', async () => {
    const { rows } = await sql<{
      id: string;
    }>`insert into users (id, wallet_address) values (gen_random_uuid(), '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed') returning id`.execute(
      db(t.orm.em.fork()),
    );
    const negative = await caught(
      sql`insert into ledger_accounts (user_id, kind, balance) values (${rows[0]!.id}::uuid, 'user_available', -1)`.execute(
        db(t.orm.em.fork()),
      ),
    );
    expect(fromDatabaseError(negative)).toMatchObject({ status: 422, code: 'INSUFFICIENT_BALANCE' });
    const other = await caught(
      db(t.orm.em.fork())
        .insertInto('pool_images')
        .values({ id: '00000000-0000-4000-8000-000000000009', content_type: 'image/png', bytes: Buffer.alloc(1), sha256: 'nothex' })
        .execute(),
    );
    expect(fromDatabaseError(other)).toBeNull();
  });
});
