// The Kysely view of the schema: table and column types inferred from the defineEntity schemas, so a
// renamed or retyped column is a compile error in every repository that uses it.
// Two representations differ from the inferred types, by driver configuration, and repositories respect them:
//   - int8: declared in 'string' mode and returned as text by both drivers (src/db/int8.ts parses them);
//   - timestamptz: typed Date, but MikroORM's type parsers keep them as strings on both drivers, so
//     repositories select epoch milliseconds (`extract(epoch from ...)`) rather than the raw column.
import type { Kysely } from 'kysely';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Em } from './orm.js';
import type { schemas } from './entities/index.js';

type Inferred = InferKyselyDB<(typeof schemas)[number]>;
/** An interface (not a type alias), so compiler messages name `DB` instead of expanding the inference. */
export interface DB extends Inferred {}
export type Db = Kysely<DB>;

/** Kysely bound to the em's current transaction when there is one (MikroORM's getKysely), else to the pool. */
export function db(em: Em): Db {
  return em.getKysely<DB>();
}
