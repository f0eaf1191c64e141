// The price sources' part of src/config/load.ts (docs/prices.md, docs/configuration.md): their keys (spread into
// schema.ts), their cross-field rules and the settings object. Reads no environment.
import { z } from 'zod';
import { assetMap, csv, intFrom, optionalString } from './parse.js';
import { DEMO_BASES_MICROS, DEMO_PRICE_SEED_DEFAULT, DEMO_PRICE_SPREAD_BPS_DEFAULT } from '../constants.js';

/** The price sources PRICE_FEED may list (src/domain/prices/create.ts). */
export const PRICE_SOURCES = ['demo', 'chainlink', 'binance', 'coinbase', 'okx', 'pyth'] as const;
export type PriceSourceName = (typeof PRICE_SOURCES)[number];

/** Pyth price feed ids (Hermes, docs.pyth.network "Price Feed IDs"): Crypto.BTC/USD, ETH/USD, SOL/USD, XRP/USD. */
const PYTH_FEEDS_DEFAULT = [
  'BTC:0xe62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43',
  'ETH:0xff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace',
  'SOL:0xef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d',
  'XRP:0xec5d399846a9209f3fe5881d70aae9268c94339ff9817e8d18ff19fa05eea1c8',
].join(',');

const httpUrl = (def: string) => z.url({ protocol: /^https?$/, error: 'must be an http(s):// URL' }).default(def);
const age = (def: number) => intFrom(def, 0, 86_400_000);
const delay = (def: number) => intFrom(def, 0, 3_600_000);

export const PRICE_KEYS = {
  /** Price sources of window resolution, comma-separated (docs/prices.md); a window resolves by PRICE_QUORUM of them. */
  PRICE_FEED: csv(z.enum(PRICE_SOURCES), 'demo'),
  /** Sources that must agree; default: a majority of PRICE_FEED. */
  PRICE_QUORUM: optionalString.pipe(
    z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(1).max(16)).optional(),
  ),
  /** Replaced by the per-source ages below; refused when set, so a deployment notices. */
  PRICE_MAX_AGE_MS: optionalString,
  /** Each source's maximum observation age: a reading observed longer than this before its time does not vote. */
  DEMO_MAX_AGE_MS: age(1_000),
  BINANCE_MAX_AGE_MS: age(2_000),
  OKX_MAX_AGE_MS: age(2_000),
  PYTH_MAX_AGE_MS: age(2_000),
  COINBASE_MAX_AGE_MS: age(60_000),
  CHAINLINK_MAX_AGE_MS: age(3_660_000),
  /** How long after a boundary each source may still publish its observation (then it abstains for that window). */
  BINANCE_PUBLICATION_DELAY_MS: delay(10_000),
  OKX_PUBLICATION_DELAY_MS: delay(10_000),
  PYTH_PUBLICATION_DELAY_MS: delay(10_000),
  COINBASE_PUBLICATION_DELAY_MS: delay(120_000),
  /** One HTTP/RPC request to a price source gives up after this long (then it is retried). */
  PRICE_SOURCE_TIMEOUT_MS: intFrom(2000, 50, 60_000),
  /** Retries of a request that timed out or got a 5xx, with doubling backoff, inside one resolution attempt. */
  PRICE_SOURCE_RETRIES: intFrom(2, 0, 10),
  /** Every source is probed (a cheap documented request) this often, and at start-up. */
  PRICE_PROBE_EVERY_MS: intFrom(60_000, 1_000, 3_600_000),
  /** NODE_ENV=production refuses PRICE_FEED with `demo` unless this is true. */
  ALLOW_DEMO_PRICES: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  BINANCE_API_URL: httpUrl('https://api.binance.com'),
  /** ASSET:SYMBOL pairs of Binance spot symbols. */
  BINANCE_SYMBOLS: assetMap(/^[A-Z0-9]{2,20}$/, 'BTC:BTCUSDT,ETH:ETHUSDT,SOL:SOLUSDT,XRP:XRPUSDT'),
  COINBASE_API_URL: httpUrl('https://api.exchange.coinbase.com'),
  /** ASSET:PRODUCT pairs of Coinbase Exchange products. */
  COINBASE_PRODUCTS: assetMap(/^[A-Z0-9]{1,12}-[A-Z0-9]{1,12}$/, 'BTC:BTC-USD,ETH:ETH-USD,SOL:SOL-USD,XRP:XRP-USD'),
  OKX_API_URL: httpUrl('https://www.okx.com'),
  /** ASSET:INSTRUMENT pairs of OKX spot instruments. */
  OKX_INSTRUMENTS: assetMap(/^[A-Z0-9]{1,12}-[A-Z0-9]{1,12}$/, 'BTC:BTC-USDT,ETH:ETH-USDT,SOL:SOL-USDT,XRP:XRP-USDT'),
  PYTH_API_URL: httpUrl('https://hermes.pyth.network'),
  /** A Pyth API key, sent as Authorization: Bearer (a secret: never logged). */
  PYTH_API_KEY: optionalString,
  /** ASSET:0xFEEDID pairs of Pyth price feed ids. */
  PYTH_FEEDS: assetMap(/^0x[0-9a-fA-F]{64}$/, PYTH_FEEDS_DEFAULT),
  /** The node Chainlink feeds are read through; unset: the first URL of CHAIN_RPC_URL (a comma-separated list). */
  CHAINLINK_RPC_URL: optionalString.pipe(
    z
      .string()
      .regex(/^(https?|wss?):\/\/[^\s,]+$/, 'must be one http(s):// or ws(s):// URL')
      .optional(),
  ),
  /** ASSET:0xADDRESS pairs of Chainlink AggregatorV3Interface contracts (proxies) on CHAINLINK_RPC_URL. */
  CHAINLINK_FEEDS: assetMap(/^0x[0-9a-fA-F]{40}$/, ''),
  /** The chain's L2 sequencer uptime feed (proxy address), or `none` on an L1. */
  CHAINLINK_SEQUENCER_FEED: optionalString.pipe(
    z
      .string()
      .regex(/^(0x[0-9a-fA-F]{40}|none)$/, 'must be a 0x address or `none`')
      .optional(),
  ),
  CHAINLINK_SEQUENCER_GRACE_MS: intFrom(3_600_000, 0, 86_400_000),
  DEMO_PRICE_SEED: z.string().min(1).max(128).default(DEMO_PRICE_SEED_DEFAULT),
  DEMO_PRICE_SPREAD_BPS: intFrom(DEMO_PRICE_SPREAD_BPS_DEFAULT, 0, 9999),
  /** A window with open positions still without an outcome this long after its end counts as late (crfq_windows_overdue). */
  RESOLUTION_OVERDUE_AFTER_MS: intFrom(60_000, 1_000, 86_400_000),
};

/** The parsed keys this part reads (with the few others its rules need). */
type PriceEnv = z.infer<z.ZodObject<typeof PRICE_KEYS>> & { NODE_ENV: string; MARKET_ASSETS: string[]; CHAIN_RPC_URL?: string | undefined };

export interface PriceSettings {
  sources: PriceSourceName[];
  quorum: number;
  maxAgeMs: Record<PriceSourceName, number>;
  publicationDelayMs: Record<'binance' | 'coinbase' | 'okx' | 'pyth', number>;
  timeoutMs: number;
  retries: number;
  probeEveryMs: number;
  demoSeed: string;
  demoSpreadBps: number;
  binance: { apiUrl: string; symbols: Record<string, string> };
  coinbase: { apiUrl: string; products: Record<string, string> };
  okx: { apiUrl: string; instruments: Record<string, string> };
  pyth: { apiUrl: string; feeds: Record<string, string>; apiKey: string | undefined };
  chainlink: { rpcUrl: string | undefined; feeds: Record<string, string>; sequencerFeed: string | undefined; sequencerGraceMs: number };
}

/** The quorum of the listed price sources: PRICE_QUORUM, else a majority of PRICE_FEED. */
export const priceQuorum = (e: PriceEnv): number => e.PRICE_QUORUM ?? Math.floor(e.PRICE_FEED.length / 2) + 1;

const trim = (url: string) => url.replace(/\/+$/, '');

/** CHAINLINK_RPC_URL, else the first URL of CHAIN_RPC_URL (which may list several, comma-separated). */
export const chainlinkRpcUrl = (e: Pick<PriceEnv, 'CHAINLINK_RPC_URL' | 'CHAIN_RPC_URL'>): string | undefined =>
  e.CHAINLINK_RPC_URL ?? e.CHAIN_RPC_URL?.split(',')[0]?.trim();

export function priceSettings(e: PriceEnv): PriceSettings {
  return {
    sources: e.PRICE_FEED,
    quorum: priceQuorum(e),
    maxAgeMs: {
      demo: e.DEMO_MAX_AGE_MS,
      binance: e.BINANCE_MAX_AGE_MS,
      coinbase: e.COINBASE_MAX_AGE_MS,
      okx: e.OKX_MAX_AGE_MS,
      pyth: e.PYTH_MAX_AGE_MS,
      chainlink: e.CHAINLINK_MAX_AGE_MS,
    },
    publicationDelayMs: {
      binance: e.BINANCE_PUBLICATION_DELAY_MS,
      coinbase: e.COINBASE_PUBLICATION_DELAY_MS,
      okx: e.OKX_PUBLICATION_DELAY_MS,
      pyth: e.PYTH_PUBLICATION_DELAY_MS,
    },
    timeoutMs: e.PRICE_SOURCE_TIMEOUT_MS,
    retries: e.PRICE_SOURCE_RETRIES,
    probeEveryMs: e.PRICE_PROBE_EVERY_MS,
    demoSeed: e.DEMO_PRICE_SEED,
    demoSpreadBps: e.DEMO_PRICE_SPREAD_BPS,
    binance: { apiUrl: trim(e.BINANCE_API_URL), symbols: e.BINANCE_SYMBOLS },
    coinbase: { apiUrl: trim(e.COINBASE_API_URL), products: e.COINBASE_PRODUCTS },
    okx: { apiUrl: trim(e.OKX_API_URL), instruments: e.OKX_INSTRUMENTS },
    pyth: { apiUrl: trim(e.PYTH_API_URL), feeds: e.PYTH_FEEDS, apiKey: e.PYTH_API_KEY },
    chainlink: {
      rpcUrl: chainlinkRpcUrl(e),
      feeds: e.CHAINLINK_FEEDS,
      sequencerFeed: e.CHAINLINK_SEQUENCER_FEED === 'none' ? undefined : e.CHAINLINK_SEQUENCER_FEED,
      sequencerGraceMs: e.CHAINLINK_SEQUENCER_GRACE_MS,
    },
  };
}

/** Whether the deployment configured `source` for `asset` (the start-up listing check asks the sources themselves). */
function configuredFor(e: PriceEnv, source: PriceSourceName, asset: string): boolean {
  const maps: Record<Exclude<PriceSourceName, 'demo'>, Record<string, string>> = {
    binance: e.BINANCE_SYMBOLS,
    coinbase: e.COINBASE_PRODUCTS,
    okx: e.OKX_INSTRUMENTS,
    pyth: e.PYTH_FEEDS,
    chainlink: e.CHAINLINK_FEEDS,
  };
  return source === 'demo' ? DEMO_BASES_MICROS[asset] !== undefined : maps[source][asset] !== undefined;
}

/** Cross-field rules of the price sources (docs/prices.md). */
export function priceProblems(e: PriceEnv): string[] {
  const problems: string[] = [];
  const listed = e.PRICE_FEED;
  const twice = listed.filter((s, i) => listed.indexOf(s) !== i);
  if (twice.length) problems.push(`PRICE_FEED: ${twice.join(', ')} listed more than once`);
  if (e.PRICE_MAX_AGE_MS !== undefined) {
    problems.push(
      'PRICE_MAX_AGE_MS: replaced by one age per source (DEMO_, BINANCE_, COINBASE_, OKX_, PYTH_, CHAINLINK_MAX_AGE_MS; docs/prices.md): remove it',
    );
  }
  const quorum = priceQuorum(e);
  if (quorum > listed.length) problems.push(`PRICE_QUORUM: ${quorum} is more than the ${listed.length} source(s) PRICE_FEED lists`);
  if (e.NODE_ENV === 'production' && listed.includes('demo') && !e.ALLOW_DEMO_PRICES) {
    problems.push(
      'PRICE_FEED: `demo` is refused when NODE_ENV=production (windows would resolve from made-up prices); list real sources, or set ALLOW_DEMO_PRICES=true',
    );
  }
  if (listed.includes('chainlink')) {
    if (!chainlinkRpcUrl(e)) problems.push('CHAINLINK_RPC_URL / CHAIN_RPC_URL: one is required when PRICE_FEED lists chainlink');
    if (!Object.keys(e.CHAINLINK_FEEDS).length)
      problems.push('CHAINLINK_FEEDS: required when PRICE_FEED lists chainlink (ASSET:0xaggregator,...)');
    if (e.NODE_ENV === 'production' && !e.CHAINLINK_SEQUENCER_FEED) {
      problems.push(
        "CHAINLINK_SEQUENCER_FEED: required when NODE_ENV=production and PRICE_FEED lists chainlink: the chain's L2 sequencer uptime feed (Base: 0xBCF85224fc0756B9Fa45aA7892530B47e10b6433), or `none` on an L1",
      );
    }
  }
  // Every offered asset must be configured for at least a quorum of the listed sources, or its windows can never resolve
  // (at start-up each source's own listing is asked too: src/domain/prices/probe.ts).
  if (quorum <= listed.length && !(listed.length === 1 && listed[0] === 'demo')) {
    for (const asset of e.MARKET_ASSETS) {
      const by = listed.filter((s) => configuredFor(e, s, asset));
      if (by.length < quorum) {
        problems.push(
          `PRICE_FEED: ${asset} is priced by ${by.length ? by.join(', ') : 'none'} of the listed sources, fewer than PRICE_QUORUM (${quorum})`,
        );
      }
    }
  }
  return problems;
}
