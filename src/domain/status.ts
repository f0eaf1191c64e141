// External components an operator watches (GET /v1/admin/status, the crfq_component_up gauge): each price
// source and, in `onchain` mode, the chain. An adapter describes itself with a StatusComponent; the API
// process lists them (src/service.ts) and checks each with a 2 s bound.
import type { PriceFeed } from './prices/feed.js';

export type ComponentKind = 'price_source' | 'chain';

export interface ComponentHealth {
  state: 'ok' | 'degraded' | 'failed';
  /** A short explanation when not ok; never a secret or a connection string. */
  detail?: string;
}

export interface StatusComponent {
  readonly name: string;
  readonly kind: ComponentKind;
  check(): Promise<ComponentHealth>;
}

/** A price source is healthy when it prices a market asset as of a second ago. */
export function priceSourceComponent(feed: PriceFeed, asset: string, now: () => number = Date.now): StatusComponent {
  return {
    name: feed.source,
    kind: 'price_source',
    async check() {
      const seen = await feed.priceAt(asset, now() - 1000);
      return seen ? { state: 'ok' } : { state: 'failed', detail: `no ${asset} price as of a second ago` };
    },
  };
}
