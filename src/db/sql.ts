// Small SQL helpers shared by the repositories.
import { sql, type RawBuilder } from 'kysely';

/**
 * `any($1::type[])` with the values bound as ONE array parameter: the statement text is the same for one
 * value and for 200,000 (a prepared plan, a stable snapshot), and nothing is spliced into the SQL text.
 */
export function anyOf<T extends string | number>(values: readonly T[], pgType: 'uuid' | 'text' | 'bigint' | 'integer'): RawBuilder<T> {
  return sql<T>`any(${values}::${sql.raw(pgType)}[])`;
}
