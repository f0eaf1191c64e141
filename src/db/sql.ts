// Small SQL helpers shared by the repositories that write raw SQL through `em.execute`.

/**
 * A PostgreSQL array literal of plain tokens (uuids, kinds, integers, bigints), to bind as one parameter
 * and cast in SQL (`?::uuid[]`, `= any(?::bigint[])`, `unnest(...)`). None of these values needs quoting;
 * never pass free text through it.
 */
export function pgArray(values: readonly (string | bigint | number)[]): string {
  return `{${values.map(String).join(',')}}`;
}
