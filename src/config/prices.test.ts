// loadConfig's price source settings (src/config/prices.ts, docs/prices.md): the defaults, what is read, and
// every bad value and combination named at once.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load.js';

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe('price sources (docs/prices.md)', () => {
  it('defaults: one age and publication delay per source, no asset no default source lists (HYPE)', () => {
    const c = loadConfig({});
    expect(c.markets.assets).toEqual(['BTC', 'ETH', 'SOL', 'XRP']);
    expect(c.prices.maxAgeMs).toEqual({ demo: 1000, binance: 2000, okx: 2000, pyth: 2000, coinbase: 60_000, chainlink: 3_660_000 });
    expect(c.prices.publicationDelayMs).toEqual({ binance: 10_000, okx: 10_000, pyth: 10_000, coinbase: 120_000 });
    expect(c.prices.probeEveryMs).toBe(60_000);
    expect(c.prices.binance).toEqual({
      apiUrl: 'https://api.binance.com',
      symbols: { BTC: 'BTCUSDT', ETH: 'ETHUSDT', SOL: 'SOLUSDT', XRP: 'XRPUSDT' },
    });
    expect(c.prices.coinbase.products).toEqual({ BTC: 'BTC-USD', ETH: 'ETH-USD', SOL: 'SOL-USD', XRP: 'XRP-USD' });
    expect(c.prices.okx).toEqual({
      apiUrl: 'https://www.okx.com',
      instruments: { BTC: 'BTC-USDT', ETH: 'ETH-USDT', SOL: 'SOL-USDT', XRP: 'XRP-USDT' },
    });
    expect(c.prices.pyth.apiUrl).toBe('https://hermes.pyth.network');
    expect(Object.keys(c.prices.pyth.feeds)).toEqual(['BTC', 'ETH', 'SOL', 'XRP']);
    expect(c.prices.pyth.apiKey).toBeUndefined();
    expect(c.prices.chainlink).toEqual({ rpcUrl: undefined, feeds: {}, sequencerFeed: undefined, sequencerGraceMs: 3_600_000 });
  });

  it('PRICE_FEED takes a list; the quorum defaults to a majority; the source settings are read', () => {
    const c = loadConfig({
      PRICE_FEED: 'pyth, binance,okx,coinbase,chainlink',
      PRICE_QUORUM: '2',
      CHAIN_RPC_URL: 'ws://127.0.0.1:8545',
      CHAINLINK_FEEDS:
        'BTC:0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419,ETH:0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8410,SOL:0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8411,XRP:0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8412',
      CHAINLINK_SEQUENCER_FEED: '0xBCF85224fc0756B9Fa45aA7892530B47e10b6433',
      CHAINLINK_SEQUENCER_GRACE_MS: '600000',
      BINANCE_API_URL: 'https://data-api.binance.vision/',
      BINANCE_MAX_AGE_MS: '1500',
      OKX_PUBLICATION_DELAY_MS: '3000',
      PYTH_API_URL: 'https://pyth.example/hermes',
      PYTH_API_KEY: 'k3y',
      PRICE_PROBE_EVERY_MS: '5000',
      DISPUTE_VOID_AFTER_MS: '0',
    });
    expect(c.prices).toMatchObject({ sources: ['pyth', 'binance', 'okx', 'coinbase', 'chainlink'], quorum: 2, probeEveryMs: 5000 });
    expect(c.prices.maxAgeMs.binance).toBe(1500);
    expect(c.prices.publicationDelayMs.okx).toBe(3000);
    expect(c.prices.binance.apiUrl).toBe('https://data-api.binance.vision');
    expect(c.prices.pyth).toMatchObject({ apiUrl: 'https://pyth.example/hermes', apiKey: 'k3y' });
    expect(c.prices.chainlink).toMatchObject({
      rpcUrl: 'ws://127.0.0.1:8545',
      sequencerFeed: '0xBCF85224fc0756B9Fa45aA7892530B47e10b6433',
      sequencerGraceMs: 600_000,
    });
    expect(
      loadConfig({
        PRICE_FEED: 'chainlink',
        CHAIN_RPC_URL: 'http://x',
        CHAINLINK_FEEDS: 'BTC:0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419',
        MARKET_ASSETS: 'BTC',
        CHAINLINK_SEQUENCER_FEED: 'none',
      }).prices.chainlink.sequencerFeed,
    ).toBeUndefined();
    expect(loadConfig({ PRICE_FEED: 'binance,coinbase' }).prices.quorum).toBe(2);
    expect(loadConfig({ PRICE_FEED: 'binance,coinbase', PRICE_QUORUM: '1' }).prices.quorum).toBe(1);
  });

  it('names every bad combination', () => {
    expect(problems({ PRICE_FEED: 'binance,binance' })).toContain('PRICE_FEED: binance listed more than once');
    expect(problems({ PRICE_FEED: 'binance,coinbase', PRICE_QUORUM: '3' })).toContain(
      'PRICE_QUORUM: 3 is more than the 2 source(s) PRICE_FEED lists',
    );
    expect(problems({ PRICE_FEED: 'chainlink' })).toEqual([
      'CHAINLINK_RPC_URL / CHAIN_RPC_URL: one is required when PRICE_FEED lists chainlink',
      'CHAINLINK_FEEDS: required when PRICE_FEED lists chainlink (ASSET:0xaggregator,...)',
      ...['BTC', 'ETH', 'SOL', 'XRP'].map((a) => `PRICE_FEED: ${a} is priced by none of the listed sources, fewer than PRICE_QUORUM (1)`),
    ]);
    expect(problems({ PRICE_FEED: 'binance,coinbase', BINANCE_SYMBOLS: 'BTC:BTCUSDT', MARKET_ASSETS: 'BTC,ETH' })).toEqual([
      'PRICE_FEED: ETH is priced by coinbase of the listed sources, fewer than PRICE_QUORUM (2)',
    ]);
    expect(problems({ PRICE_FEED: 'demo,kraken' })).toEqual([
      'PRICE_FEED.1: Invalid option: expected one of "demo"|"chainlink"|"binance"|"coinbase"|"okx"|"pyth"',
    ]);
    expect(problems({ BINANCE_SYMBOLS: 'BTC:BTCUSDT,BTC:XBT' })).toEqual(['BINANCE_SYMBOLS: asset BTC listed twice']);
    expect(problems({ PYTH_FEEDS: 'BTC:0x1234' })[0]).toMatch(/^PYTH_FEEDS: not ASSET:/);
    expect(problems({ CHAINLINK_SEQUENCER_FEED: 'base' })).toEqual(['CHAINLINK_SEQUENCER_FEED: must be a 0x address or `none`']);
    // The one maximum age of every source is gone: a deployment that still sets it is told, not silently ignored.
    expect(problems({ PRICE_MAX_AGE_MS: '60000' })).toEqual([
      'PRICE_MAX_AGE_MS: replaced by one age per source (DEMO_, BINANCE_, COINBASE_, OKX_, PYTH_, CHAINLINK_MAX_AGE_MS; docs/prices.md): remove it',
    ]);
  });

  it('NODE_ENV=production refuses the demo prices unless ALLOW_DEMO_PRICES=true, and chainlink without its sequencer feed (or `none`)', () => {
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y', OPERATOR_TOKEN: 'x'.repeat(16) };
    expect(problems(prod)).toContain(
      'PRICE_FEED: `demo` is refused when NODE_ENV=production (windows would resolve from made-up prices); list real sources, or set ALLOW_DEMO_PRICES=true',
    );
    expect(problems({ ...prod, PRICE_FEED: 'binance,coinbase' }).filter((p) => p.startsWith('PRICE_FEED'))).toEqual([]);
    expect(problems({ ...prod, ALLOW_DEMO_PRICES: 'true' }).filter((p) => p.startsWith('PRICE_FEED'))).toEqual([]);
    expect(problems({ PRICE_FEED: 'demo' }).filter((p) => p.startsWith('PRICE_FEED'))).toEqual([]);
    const chainlink = {
      ...prod,
      PRICE_FEED: 'pyth,chainlink',
      CHAIN_RPC_URL: 'http://x',
      CHAINLINK_FEEDS: 'BTC:0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419',
      MARKET_ASSETS: 'BTC',
    };
    expect(problems(chainlink).filter((p) => p.startsWith('CHAINLINK'))).toEqual([
      "CHAINLINK_SEQUENCER_FEED: required when NODE_ENV=production and PRICE_FEED lists chainlink: the chain's L2 sequencer uptime feed (Base: 0xBCF85224fc0756B9Fa45aA7892530B47e10b6433), or `none` on an L1",
    ]);
    expect(problems({ ...chainlink, CHAINLINK_SEQUENCER_FEED: 'none' }).filter((p) => p.startsWith('CHAINLINK'))).toEqual([]);
  });
});

describe('the node Chainlink feeds are read through', () => {
  const feeds = { PRICE_FEED: 'chainlink', CHAINLINK_FEEDS: 'BTC:0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c', MARKET_ASSETS: 'BTC' };
  it('is CHAINLINK_RPC_URL, else the FIRST URL of a comma-separated CHAIN_RPC_URL', () => {
    const list = { ...feeds, CHAIN_RPC_URL: 'https://a.example/k1,https://b.example/k2' };
    expect(loadConfig(list).prices.chainlink.rpcUrl).toBe('https://a.example/k1');
    expect(loadConfig({ ...feeds, CHAIN_RPC_URL: 'https://one.example' }).prices.chainlink.rpcUrl).toBe('https://one.example');
    expect(loadConfig({ ...list, CHAINLINK_RPC_URL: 'https://c.example' }).prices.chainlink.rpcUrl).toBe('https://c.example');
    expect(loadConfig({ ...feeds, CHAINLINK_RPC_URL: 'https://c.example' }).prices.chainlink.rpcUrl).toBe('https://c.example');
    expect(() => loadConfig({ ...feeds, CHAINLINK_RPC_URL: 'https://a.example,https://b.example' })).toThrow(
      /CHAINLINK_RPC_URL: must be one/,
    );
  });
});
