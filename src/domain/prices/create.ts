// The sources PRICE_FEED lists, in its order, as PriceFeeds (docs/prices.md), and the quorum reader over them.
// Every HTTP source shares the deployment's circuit (circuit.ts): a 429 or 418 seen by one process holds
// every process's requests to that source until its Retry-After passed.
import type { PriceSourceName } from '../../config/prices.js';
import { createBinanceFeed } from '../../adapters/prices/binance.js';
import { createChainlinkFeed } from '../../adapters/prices/chainlink.js';
import type { SourceCircuit } from './circuit.js';
import { createCoinbaseFeed } from '../../adapters/prices/coinbase.js';
import { createDemoFeed } from './demo.js';
import type { PriceFeed } from './feed.js';
import { createOkxFeed } from '../../adapters/prices/okx.js';
import { createPythFeed } from '../../adapters/prices/pyth.js';
import { createQuorumFeed, type ObservationCache, type QuorumFeed } from './read.js';

export interface PriceFeedSettings {
  sources: readonly PriceSourceName[];
  quorum: number;
  /** Each source's maximum observation age (<SOURCE>_MAX_AGE_MS). */
  maxAgeMs: Readonly<Record<PriceSourceName, number>>;
  /** How long after a boundary each exchange may still publish it (<SOURCE>_PUBLICATION_DELAY_MS). */
  publicationDelayMs: Readonly<Record<'binance' | 'coinbase' | 'okx' | 'pyth', number>>;
  timeoutMs: number;
  retries: number;
  demoSeed: string;
  demoSpreadBps: number;
  binance: { apiUrl: string; symbols: Readonly<Record<string, string>> };
  coinbase: { apiUrl: string; products: Readonly<Record<string, string>> };
  okx: { apiUrl: string; instruments: Readonly<Record<string, string>> };
  pyth: { apiUrl: string; feeds: Readonly<Record<string, string>>; apiKey: string | undefined };
  chainlink: {
    rpcUrl: string | undefined;
    feeds: Readonly<Record<string, string>>;
    sequencerFeed: string | undefined;
    sequencerGraceMs: number;
  };
}

export interface PriceFeedDeps {
  now?: () => number;
  /** The deployment's shared circuit (src/jobs/price-circuit.ts); none: no gate. */
  circuit?: SourceCircuit;
}

export function createPriceFeeds(s: PriceFeedSettings, deps: PriceFeedDeps = {}): PriceFeed[] {
  const { now, circuit } = deps;
  const http = { timeoutMs: s.timeoutMs, retries: s.retries, circuit, now };
  const delay = s.publicationDelayMs;
  return s.sources.map((source): PriceFeed => {
    switch (source) {
      case 'demo':
        return createDemoFeed({ seed: s.demoSeed, spreadBps: s.demoSpreadBps, now });
      case 'binance':
        return createBinanceFeed({ ...http, ...s.binance, publicationDelayMs: delay.binance });
      case 'coinbase':
        return createCoinbaseFeed({ ...http, ...s.coinbase, publicationDelayMs: delay.coinbase });
      case 'okx':
        return createOkxFeed({ ...http, ...s.okx, publicationDelayMs: delay.okx });
      case 'pyth':
        return createPythFeed({ ...http, ...s.pyth, publicationDelayMs: delay.pyth });
      case 'chainlink':
        if (!s.chainlink.rpcUrl) throw new Error('PRICE_FEED lists chainlink without CHAIN_RPC_URL'); // config refuses it first
        return createChainlinkFeed({
          timeoutMs: s.timeoutMs,
          retries: s.retries,
          rpcUrl: s.chainlink.rpcUrl,
          feeds: s.chainlink.feeds,
          sequencerFeed: s.chainlink.sequencerFeed,
          sequencerGraceMs: s.chainlink.sequencerGraceMs,
        });
    }
  });
}

/** PRICE_FEED's sources behind the quorum rule, one fetch per boundary (`cache`), blocked sources left alone. */
export function createPriceQuorum(
  s: PriceFeedSettings,
  deps: PriceFeedDeps & { cache?: ObservationCache; blocked?: (source: string) => Promise<string | null> } = {},
): QuorumFeed {
  const ages = Object.fromEntries(s.sources.map((x) => [x, s.maxAgeMs[x]]));
  return createQuorumFeed(createPriceFeeds(s, deps), s.quorum, ages, { now: deps.now, cache: deps.cache, blocked: deps.blocked });
}
