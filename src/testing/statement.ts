// Checks of a user's statement (GET /v1/users/ledger; src/domain/ledger/statement.ts) shared by the medium and
// integration tests: a walk is chained (each movement's balances after are the next one's plus its change, and
// the oldest starts from zero), holds no movement twice, and, against a later complete walk, misses nothing:
// per balance, what it shows is everything the complete walk shows up to some point, in the same order.
import { expect } from 'vitest';
import type { LedgerMovement } from '../../generated/openapi/types.gen.js';
import type { BalanceName, Balances } from '../domain/ledger/statement.js';

export interface WalkedMovement {
  id: string;
  change: Balances;
  after: Balances;
}

const NAMES: BalanceName[] = ['available', 'reserved', 'appToken'];

/** A movement of the wire (GET /v1/users/ledger) in bigint micros. */
export function fromWire(m: LedgerMovement): WalkedMovement {
  const b = (x: { available_micros: string; reserved_micros: string; available_app_token_micros: string }): Balances => ({
    available: BigInt(x.available_micros),
    reserved: BigInt(x.reserved_micros),
    appToken: BigInt(x.available_app_token_micros),
  });
  return { id: m.movement_id, change: b(m.change), after: b(m.balances_after) };
}

/** Chained from zero, no duplicate; returns the balances the walk adds up to (its first movement's after). */
export function expectChained(walk: readonly WalkedMovement[]): Balances {
  expect(new Set(walk.map((m) => m.id)).size).toBe(walk.length);
  walk.forEach((m, i) => {
    const below = walk[i + 1]?.after ?? { available: 0n, reserved: 0n, appToken: 0n };
    for (const n of NAMES) expect(m.after[n] - m.change[n], `${m.id} ${n}`).toBe(below[n]);
  });
  const total = { available: 0n, reserved: 0n, appToken: 0n };
  for (const m of walk) for (const n of NAMES) total[n] += m.change[n];
  expect(total).toEqual(walk[0]?.after ?? total);
  return total;
}

/**
 * `walk` (read while postings committed) against `complete` (read after they all did): the same movements in
 * the same order, and per balance a suffix of the complete walk's movements on it: nothing older was skipped.
 */
export function expectSnapshotOf(walk: readonly WalkedMovement[], complete: readonly WalkedMovement[]): void {
  const shown = new Set(walk.map((m) => m.id));
  expect(walk.map((m) => m.id)).toEqual(complete.filter((m) => shown.has(m.id)).map((m) => m.id));
  for (const n of NAMES) {
    const all = complete.filter((m) => m.change[n] !== 0n).map((m) => m.id);
    const mine = walk.filter((m) => m.change[n] !== 0n).map((m) => m.id);
    expect(mine, `balance ${n}`).toEqual(all.slice(all.length - mine.length));
  }
  const byId = new Map(complete.map((m) => [m.id, m]));
  for (const m of walk) expect(m.change).toEqual(byId.get(m.id)!.change);
}
