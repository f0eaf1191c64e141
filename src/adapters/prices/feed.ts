// The port every price source implements (docs/prices.md): `demo` (src/domain/prices/demo.ts, deterministic,
// development) and the network clients beside this file, `binance`, `coinbase`, `okx`, `pyth` and `chainlink`,
// chosen by PRICE_FEED. The rules that combine them (quorum, outcome, verification) are in src/domain/prices/.
import { Abstain } from './reasons.js';

export interface PriceObservation {
  /** Price in micros of the quote currency (USD), an integer. */
  priceMicros: bigint;
  /** When this observation was made (Unix ms), at or before the time asked for. */
  observedAtMs: number;
  /**
   * The source's own identifier of the observation, so anyone can look it up there: `round:<uint80 round id>`
   * (chainlink), `kline:<open time ms>` (binance 1 s klines), `candle:<bucket start s>` (coinbase),
   * `candle1s:<open time ms>` (okx 1 s candles), `update:<publish time s>` (pyth), `second:<s>` (demo).
   */
  sourceRef?: string;
  /** The source's own uncertainty of the price, micros (Pyth's confidence interval); absent elsewhere. */
  confidenceMicros?: bigint;
}

/** What a source says about its listing of the assets, from a cheap documented request (its probe). */
export interface SourceProbe {
  /** Assets the source answered that it lists (trading, online, live). */
  listed: string[];
  /** Assets it answered it does not list; an asset in neither was not checked. */
  unlisted: string[];
}

export interface PriceFeed {
  /** The source's name as PRICE_FEED lists it; stored with each reading. */
  readonly source: string;
  /**
   * The observation at the boundary `tsMs` (the last at or before it), or null when the source has none.
   * Throws an Abstain (reasons.ts) when it cannot give one: not published yet, blocked, banned, down...
   * A missing boundary observation is never replaced by an older one.
   */
  priceAt(asset: string, tsMs: number): Promise<PriceObservation | null>;
  /** The observation `ref` names, fetched again from the source (prices:verify); null when the source has no such observation. */
  lookup?(asset: string, ref: string): Promise<PriceObservation | null>;
  /** One cheap documented request per asset or per source: reachable, and which of `assets` it lists. Throws like priceAt. */
  probe?(assets: readonly string[]): Promise<SourceProbe>;
  /** Whether the deployment configured a symbol, product or feed of the source for the asset. */
  covers?(asset: string): boolean;
}

/**
 * The boundary's own observation is missing: `not_published_yet` (the job asks again) until `delayMs` after
 * the boundary, then `boundary_not_published` (final). Never an older observation in its place.
 */
export function boundaryMissing(what: string, tsMs: number, nowMs: number, delayMs: number): Abstain {
  return nowMs < tsMs + delayMs
    ? new Abstain('not_published_yet', `${what} not published yet (asked again until ${delayMs} ms after the boundary)`)
    : new Abstain('boundary_not_published', `${what} still not published ${delayMs} ms after the boundary`);
}
