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
  const at = (asset: string, s: number): PriceObservation | null => {
    const priceMicros = demoPriceMicros(opts.seed, asset, s * 1000, opts.spreadBps);
    return priceMicros === null ? null : { priceMicros, observedAtMs: s * 1000, sourceRef: `second:${s}` };
  };
  return {
    source: 'demo',
    covers: (asset) => DEMO_BASES_MICROS[asset] !== undefined,
    async priceAt(asset: string, tsMs: number): Promise<PriceObservation | null> {
      if (tsMs > now()) return null;
      return at(asset, Math.floor(tsMs / 1000));
    },
    async lookup(asset, ref) {
      const m = /^second:(\d{1,12})$/.exec(ref);
      return m ? at(asset, Number(m[1])) : null;
    },
    async probe(assets) {
      return {
        listed: assets.filter((a) => DEMO_BASES_MICROS[a] !== undefined),
        unlisted: assets.filter((a) => DEMO_BASES_MICROS[a] === undefined),
      };
    },
  };
}
