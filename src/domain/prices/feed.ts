// The price sources behind window resolution (docs/prices.md). Each source implements PriceFeed: `demo`
// (deterministic, development), `binance`, `coinbase`, `okx`, `pyth` and `chainlink` (src/adapters/prices/*.ts),
// chosen by PRICE_FEED; a window resolves when PRICE_QUORUM of them agree (quorum.ts). The resolution job calls
// them outside any transaction.
import type { MarketOutcome } from '../../db/vocabulary.js';

export { boundaryMissing, type PriceFeed, type PriceObservation, type SourceProbe } from '../../adapters/prices/feed.js';

/** Up (YES) wins only if the close is strictly above the open; a tie is down (NO), as Longshot. */
export function windowOutcome(openMicros: bigint, closeMicros: bigint): MarketOutcome {
  return closeMicros > openMicros ? 'YES' : 'NO';
}
