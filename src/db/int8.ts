// int8 (bigint) columns arrive as decimal strings from both drivers (pg's default; src/db/pglite.ts sets
// the same parser on PGlite), and the entities declare them in 'string' mode to match. These two functions
// (and their OrNull forms) are the only places they become numbers, called by the repositories, so the
// domain sees bigint micros and numbers only: money as bigint, ids and epoch milliseconds as safe integers.

/** Micros (or any int8 amount) as bigint. */
export function int8ToBigint(v: string | number | bigint): bigint {
  return BigInt(v);
}

export function int8ToBigintOrNull(v: string | number | bigint | null): bigint | null {
  return v === null ? null : int8ToBigint(v);
}

/** An id, a count or epoch milliseconds; throws beyond 2^53 rather than round. */
export function int8ToNumber(v: string | number | bigint): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${String(v)} is not a safe integer`);
  return n;
}

export function int8ToNumberOrNull(v: string | number | bigint | null): number | null {
  return v === null ? null : int8ToNumber(v);
}

/** An int8 parameter: bound as its decimal text, which PostgreSQL casts exactly. */
export function int8(v: bigint | number): string {
  return typeof v === 'bigint' ? v.toString(10) : String(v);
}
