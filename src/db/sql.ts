// Small SQL helpers shared by the repositories.
import { sql, type RawBuilder } from 'kysely';

/**
 * `any($1::type[])` with the values bound as ONE array parameter: the statement text is the same for one
 * value and for 200,000 (a prepared plan, a stable snapshot), and nothing is spliced into the SQL text.
 */
export function anyOf<T extends string | number>(values: readonly T[], pgType: 'uuid' | 'text' | 'bigint' | 'integer'): RawBuilder<T> {
  return sql<T>`any(${values}::${sql.raw(pgType)}[])`;
}

/**
 * A PostgreSQL array literal of plain tokens (uuids, kinds, integers, bigints), to bind as one parameter
 * and cast in SQL. Only for the `em.execute` SQL not yet moved to a repository (contests/entries.ts);
 * repositories bind JavaScript arrays directly.
 */
export function pgArray(values: readonly (string | bigint | number)[]): string {
  return `{${values.map(String).join(',')}}`;
}
