// Micros are bigint in TypeScript and decimal integer strings on the wire (never floats).

/** A request amount (a JSON integer the spec already bounded to 1..2^53-1) as bigint micros. */
export function microsFromRequest(n: number): bigint {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`amount ${n} is not a positive safe integer`);
  return BigInt(n);
}

/** Decimal integer string of micros, as the interface sends amounts and balances. */
export function microsToWire(m: bigint): string {
  return m.toString(10);
}

/**
 * A bigint column read as text. Repositories return parsed micros (src/db/int8.ts); only src/domain/rfq/ still
 * parses here (rfq.repository.ts returns some int8 text) until it does the same.
 */
export { int8ToBigint as microsFromDb } from '../../db/int8.js';
