// The price source behind window resolution (docs/trading.md, "The price rule"). Adapters plug in behind this interface:
// `demo` (the default, deterministic) ships; an exchange-kline or oracle adapter would be another file
// here implementing PriceFeed, chosen by PRICE_FEED. The resolution job calls it outside any transaction.

export interface PriceObservation {
  /** Price in micros of the quote currency (USD), an integer. */
  priceMicros: bigint;
  /** When this observation was made (Unix ms), at or before the time asked for. */
  observedAtMs: number;
}

export interface PriceFeed {
  /** Stored in `window_resolutions.source`. */
  readonly source: string;
  /** The last observation at or before `tsMs`, or null if it is not known (yet). */
  priceAt(asset: string, tsMs: number): Promise<PriceObservation | null>;
}

export type WindowOutcome = 'YES' | 'NO';

/** Up (YES) wins only if the close is strictly above the open; a tie is down (NO), as Longshot. */
export function windowOutcome(openMicros: bigint, closeMicros: bigint): WindowOutcome {
  return closeMicros > openMicros ? 'YES' : 'NO';
}
