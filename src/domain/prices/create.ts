// The feed of PRICE_FEED: the seam where a real adapter (exchange klines, an oracle) plugs in beside demo.ts.
import { createDemoFeed } from './demo.js';
import type { PriceFeed } from './feed.js';

export interface PriceFeedSettings {
  feed: 'demo';
  demoSeed: string;
  demoSpreadBps: number;
}

/** The feed of PRICE_FEED (only `demo` exists so far). A real adapter is a new case here and a file beside demo.ts. */
export function createPriceFeed(settings: PriceFeedSettings, now?: () => number): PriceFeed {
  return createDemoFeed({ seed: settings.demoSeed, spreadBps: settings.demoSpreadBps, now });
}
