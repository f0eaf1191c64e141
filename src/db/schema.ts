// The Kysely view of the schema: table and column types inferred from the defineEntity schemas, so a
// renamed or retyped column is a compile error in every repository that uses it.
// The types say what the drivers return: int8 as text (declared in 'string' mode; src/db/int8.ts parses
// them) and timestamptz as text (entities/columns.ts; MikroORM's type parsers keep PostgreSQL's text).
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
