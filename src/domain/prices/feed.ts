// The price sources behind window resolution (docs/prices.md). Each source implements PriceFeed: `demo`
// (deterministic, development), `binance`, `coinbase` and `chainlink` (src/domain/prices/*.ts), chosen by
// PRICE_FEED; a window resolves when PRICE_QUORUM of them agree (quorum.ts). The resolution job calls them
// outside any transaction.
import type { MarketOutcome } from '../../db/vocabulary.js';

export interface PriceObservation {
  /** Price in micros of the quote currency (USD), an integer. */
  priceMicros: bigint;
  /** When this observation was made (Unix ms), at or before the time asked for. */
  observedAtMs: number;
  /**
   * The source's own identifier of the observation, so anyone can look it up there: `round:<uint80 round id>`
   * (chainlink), `kline:<open time ms>` (binance 1 s klines), `candle:<bucket start s>` (coinbase), `second:<s>` (demo).
   */
  sourceRef?: string;
}

export interface PriceFeed {
  /** The source's name as PRICE_FEED lists it; stored with each reading. */
  readonly source: string;
  /** The last observation at or before `tsMs`, or null if it is not known (yet). Throws when the source fails. */
  priceAt(asset: string, tsMs: number): Promise<PriceObservation | null>;
}

/** Up (YES) wins only if the close is strictly above the open; a tie is down (NO), as Longshot. */
export function windowOutcome(openMicros: bigint, closeMicros: bigint): MarketOutcome {
  return closeMicros > openMicros ? 'YES' : 'NO';
}
