// The deterministic demo price feed (PRICE_FEED=demo, docs/trading.md "The price rule"), published in the spec so anyone
// can predict a window's outcome. Same answer on every process and after restarts:
//   s = floor(ts / 1000); h = sha256(`${seed}:${asset}:${s}`); w = floor(base * spreadBps / 10000)
//   price = base - w + (uint32_be(h[0..4]) mod (2w + 1))
import { createHash } from 'node:crypto';
import { DEMO_BASES_MICROS } from '../../constants.js';
import type { PriceFeed, PriceObservation } from './feed.js';

/** The demo price of `asset` during the second containing `tsMs`, or null for an asset without a base. */
export function demoPriceMicros(seed: string, asset: string, tsMs: number, spreadBps: number): bigint | null {
  const base = DEMO_BASES_MICROS[asset];
  if (base === undefined) return null;
  const s = Math.floor(tsMs / 1000);
  const h = createHash('sha256').update(`${seed}:${asset}:${s}`, 'utf8').digest();
  const w = (base * BigInt(spreadBps)) / 10_000n;
  return base - w + (BigInt(h.readUInt32BE(0)) % (2n * w + 1n));
}

export interface DemoFeedOptions {
  seed: string;
  spreadBps: number;
  /** Observations after now are not known yet (the default clock is Date.now). */
  now?: () => number;
}

export function createDemoFeed(opts: DemoFeedOptions): PriceFeed {
  const now = opts.now ?? Date.now;
  return {
    source: 'demo',
    async priceAt(asset: string, tsMs: number): Promise<PriceObservation | null> {
      if (tsMs > now()) return null;
      const priceMicros = demoPriceMicros(opts.seed, asset, tsMs, opts.spreadBps);
      const s = Math.floor(tsMs / 1000);
      return priceMicros === null ? null : { priceMicros, observedAtMs: s * 1000, sourceRef: `second:${s}` };
    },
  };
}
