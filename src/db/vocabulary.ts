// The market words the tables' enum columns, the repositories and the domain share (docs/trading.md, "Settling
// the positions"), written once on the lowest floor that uses them (scripts/check-floors.sh: domain reads db).
// The SQL checks of the migrations spell the same values; a migration is history and keeps its own text.

/** A leg's or a pick's side: `up` wins on YES, `down` on NO. */
export const DIRECTIONS = ['up', 'down'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** How a market window resolved: up (YES) when the close is strictly above the open, else down (NO). */
export const MARKET_OUTCOMES = ['YES', 'NO'] as const;
export type MarketOutcome = (typeof MARKET_OUTCOMES)[number];
/** A resolution recorded for a market: an outcome, or VOID (every leg on it voided, every pick unscored). */
export type ResolutionOutcome = MarketOutcome | 'VOID';

/** Where a leg, a position or a pick ends up (taker-relative for a position). */
export const SETTLED_OUTCOMES = ['won', 'lost', 'voided'] as const;
export type SettledOutcome = (typeof SETTLED_OUTCOMES)[number];
