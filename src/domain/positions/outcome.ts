// Pure settlement rule of a position (docs/trading.md, "Settling the positions"), once its legs have their
// outcomes (set in SQL by PositionsRepository.applyOutcome: up wins on YES, down on NO, VOID voids): the
// parlay is lost as soon as one leg lost, won when every leg won, voided when no leg lost, at least one is
// voided and none is pending; open otherwise.
import type { SettledOutcome } from '../../db/vocabulary.js';

export type LegOutcome = 'pending' | SettledOutcome;
export type PositionStatus = 'open' | SettledOutcome;

export function positionStatus(legs: readonly LegOutcome[]): PositionStatus {
  if (!legs.length) throw new RangeError('a position has at least one leg');
  if (legs.includes('lost')) return 'lost';
  if (legs.includes('pending')) return 'open';
  return legs.includes('voided') ? 'voided' : 'won';
}
