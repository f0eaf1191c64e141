// Pure settlement rules of a position (docs/trading.md, "Settling the positions"): each leg against its window's outcome, then
// the parlay: lost as soon as one leg lost, won when every leg won, voided when no leg lost, at least
// one is voided and none is pending; open otherwise.
import type { Direction } from '../rfq/typed-data.js';

export type WindowResult = 'YES' | 'NO' | 'VOID';
export type LegOutcome = 'pending' | 'won' | 'lost' | 'voided';
export type PositionStatus = 'open' | 'won' | 'lost' | 'voided';

/** A leg on `up` wins on YES, on `down` wins on NO; a voided window voids the leg. */
export function legOutcome(direction: Direction, result: WindowResult | null): LegOutcome {
  if (result === null) return 'pending';
  if (result === 'VOID') return 'voided';
  return (result === 'YES') === (direction === 'up') ? 'won' : 'lost';
}

export function positionStatus(legs: readonly LegOutcome[]): PositionStatus {
  if (!legs.length) throw new RangeError('a position has at least one leg');
  if (legs.includes('lost')) return 'lost';
  if (legs.includes('pending')) return 'open';
  return legs.includes('voided') ? 'voided' : 'won';
}
