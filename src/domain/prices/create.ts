// The sources PRICE_FEED lists, in its order, as PriceFeeds (docs/prices.md), and the quorum reader over them.
import { createBinanceFeed } from './binance.js';
import { createChainlinkFeed } from './chainlink.js';
import { createCoinbaseFeed } from './coinbase.js';
import { createDemoFeed } from './demo.js';
import type { PriceFeed } from './feed.js';
import { createQuorumFeed, type QuorumFeed } from './read.js';

export interface PriceFeedSettings {
  sources: ReadonlyArray<'demo' | 'chainlink' | 'binance' | 'coinbase'>;
  quorum: number;
  maxAgeMs: number;
  timeoutMs: number;
  retries: number;
  demoSeed: string;
  demoSpreadBps: number;
  binance: { apiUrl: string; symbols: Readonly<Record<string, string>> };
  coinbase: { apiUrl: string; products: Readonly<Record<string, string>> };
  chainlink: { rpcUrl: string | undefined; feeds: Readonly<Record<string, string>> };
}

export function createPriceFeeds(s: PriceFeedSettings, now?: () => number): PriceFeed[] {
  const http = { timeoutMs: s.timeoutMs, retries: s.retries };
  // Look back far enough to find a reading PRICE_MAX_AGE_MS old (and a little more, to tell "stale" from "missing").
  const lookbackMs = s.maxAgeMs + 60_000;
  return s.sources.map((source): PriceFeed => {
    switch (source) {
      case 'demo':
        return createDemoFeed({ seed: s.demoSeed, spreadBps: s.demoSpreadBps, now });
      case 'binance':
        return createBinanceFeed({ ...http, ...s.binance, lookbackMs, now });
      case 'coinbase':
        return createCoinbaseFeed({ ...http, ...s.coinbase, lookbackMs, now });
      case 'chainlink':
        if (!s.chainlink.rpcUrl) throw new Error('PRICE_FEED lists chainlink without CHAIN_RPC_URL'); // config refuses it first
        return createChainlinkFeed({ ...http, rpcUrl: s.chainlink.rpcUrl, feeds: s.chainlink.feeds });
    }
  });
}

/** PRICE_FEED's sources behind the quorum rule. */
export function createPriceQuorum(s: PriceFeedSettings, now?: () => number): QuorumFeed {
  return createQuorumFeed(createPriceFeeds(s, now), s.quorum, s.maxAgeMs, now);
}
