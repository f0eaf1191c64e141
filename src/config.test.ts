import { RFQ_EIP712_SALT_DEV } from './constants.js';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, AUTH_DOMAIN_DEFAULT } from './config.js';

const P256_PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

describe('loadConfig', () => {
  it('serves the embedded deployment with no settings at all', () => {
    const c = loadConfig({});
    expect(c.deployment).toBe('embedded');
    expect(c.port).toBe(3000);
    expect(c.dataDir).toBe('.data');
    expect(c.sessionTtlSeconds).toBe(86400);
    expect(c.mm).toEqual({
      authDomain: AUTH_DOMAIN_DEFAULT,
      challengeTtlMs: 30000,
      authTimeoutMs: 10000,
      heartbeatIntervalMs: 15000,
      maxMissedPongs: 3,
      sessionTtlMs: 3600000,
      maxConnectionsPerIp: 20,
      maxUnauthenticatedPerIp: 4,
      maxFramesPerSecond: 200,
      frameBurst: 1000,
      maxQueuedFrames: 128,
      maxUnauthenticatedFrames: 24,
    });
    expect(c.connections).toEqual({ maxPerIp: 256, maxTotal: 8192 });
    expect(c.markets).toEqual({
      assets: ['BTC', 'ETH', 'SOL', 'XRP', 'HYPE'],
      durations: [60, 300, 900, 3600, 14400, 86400],
      bettingCloseBufferMs: 10000,
      lookupHorizonMs: 604800000,
    });
    expect(c.depositSyncWaitMs).toBe(5000);
    expect(c.settlementMode).toBe('demo');
    expect(c.siwe).toEqual({ domain: 'localhost:3000', chainIds: [1, 8453, 84532] });
    expect(c.privy).toEqual({ appId: undefined, verificationKey: undefined });
    expect(Object.isFrozen(c) && Object.isFrozen(c.mm)).toBe(true);
  });

  it('connection and frame limits: 0 turns the TCP caps off; the unauthenticated cap is at most the per-address one', () => {
    expect(loadConfig({ HTTP_MAX_CONNECTIONS_PER_IP: '0', HTTP_MAX_CONNECTIONS: '0' }).connections).toEqual({ maxPerIp: 0, maxTotal: 0 });
    expect(loadConfig({ MM_MAX_CONNECTIONS_PER_IP: '3', MM_MAX_UNAUTHENTICATED_PER_IP: '4' }).mm.maxUnauthenticatedPerIp).toBe(3);
    expect(() => loadConfig({ MM_MAX_FRAMES_PER_SECOND: '0', HTTP_MAX_CONNECTIONS: '-1' })).toThrow(ConfigError);
  });

  it('picks the deployment from DATABASE_URL and REDIS_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).deployment).toBe('postgres');
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db', REDIS_URL: 'redis://h:6379' }).deployment).toBe('production');
  });

  it('the default AUTH_DOMAIN is exactly 35 ASCII bytes', () => {
    expect(Buffer.byteLength(AUTH_DOMAIN_DEFAULT, 'ascii')).toBe(35);
  });

  it('accepts SESSION_TTL_SECONDS down to 1 s (tests and short-lived deployments), not 0', () => {
    expect(loadConfig({ SESSION_TTL_SECONDS: '1' }).sessionTtlSeconds).toBe(1);
    expect(loadConfig({ SESSION_TTL_SECONDS: '59' }).sessionTtlSeconds).toBe(59);
    expect(() => loadConfig({ SESSION_TTL_SECONDS: '0' })).toThrow(/SESSION_TTL_SECONDS/);
  });

  it('lists every bad value at once', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'eighty', MM_AUTH_DOMAIN: 'too short', MARKET_DURATIONS: '300,abc', SETTLEMENT_MODE: 'mainnet' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const keys = (caught as ConfigError).problems.map((p) => p.split(/[.:]/)[0]);
    expect(keys).toEqual(expect.arrayContaining(['PORT', 'MM_AUTH_DOMAIN', 'MARKET_DURATIONS', 'SETTLEMENT_MODE']));
  });

  it('refuses production without a database and an operator token', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL[\s\S]*OPERATOR_TOKEN/);
  });

  it('refuses production without a Privy app (the development identity is never used there)', () => {
    const prod = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://u@h/db',
      OPERATOR_TOKEN: 'x'.repeat(32),
      ALLOW_DEMO_SETTLEMENT: 'true',
      ALLOW_DEMO_PRICES: 'true',
      RFQ_EIP712_SALT: `0x${'11'.repeat(32)}`,
    };
    expect(() => loadConfig(prod)).toThrow(/PRIVY_APP_ID \/ PRIVY_VERIFICATION_KEY: required when NODE_ENV=production/);
    expect(loadConfig({ ...prod, PRIVY_APP_ID: 'app', PRIVY_VERIFICATION_KEY: P256_PEM }).privy.appId).toBe('app');
  });

  it('accepts only a P-256 SPKI PEM as PRIVY_VERIFICATION_KEY, also with \\n escapes on one line', () => {
    expect(loadConfig({ PRIVY_APP_ID: 'app', PRIVY_VERIFICATION_KEY: P256_PEM.replace(/\n/g, '\\n') }).privy.verificationKey).toBe(P256_PEM);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => loadConfig({ PRIVY_APP_ID: 'app', PRIVY_VERIFICATION_KEY: rsa })).toThrow(/PRIVY_VERIFICATION_KEY: must be an SPKI PEM P-256/);
    expect(() =>
      loadConfig({ PRIVY_APP_ID: 'app', PRIVY_VERIFICATION_KEY: '-----BEGIN PUBLIC KEY-----\ngarbage\n-----END PUBLIC KEY-----' }),
    ).toThrow(/PRIVY_VERIFICATION_KEY/);
  });

  it('reads the sign-in domain and chains', () => {
    expect(loadConfig({ SIWE_DOMAIN: 'App.Example.com', SIWE_CHAIN_IDS: '8453, 84532' }).siwe).toEqual({
      domain: 'app.example.com',
      chainIds: [8453, 84532],
    });
    expect(() => loadConfig({ SIWE_DOMAIN: 'https://app.example.com/' })).toThrow(/SIWE_DOMAIN/);
    expect(() => loadConfig({ SIWE_CHAIN_IDS: 'base' })).toThrow(/SIWE_CHAIN_IDS/);
  });

  it('refuses half a Privy configuration and Redis without PostgreSQL', () => {
    expect(() => loadConfig({ PRIVY_APP_ID: 'app' })).toThrow(/PRIVY_APP_ID/);
    expect(() => loadConfig({ REDIS_URL: 'redis://h:6379' })).toThrow(/REDIS_URL: requires DATABASE_URL/);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '' }).deployment).toBe('embedded');
  });
  it('refuses a betting-close buffer that leaves a window without betting time, naming the durations', () => {
    expect(loadConfig({ MARKET_DURATIONS: '60,300', MARKET_BETTING_CLOSE_BUFFER_MS: '59999' }).markets.bettingCloseBufferMs).toBe(59999);
    let caught: unknown;
    try {
      loadConfig({ MARKET_DURATIONS: '60,300,900', MARKET_BETTING_CLOSE_BUFFER_MS: '300000' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^MARKET_BETTING_CLOSE_BUFFER_MS: .*60, 300 s/);
    expect(() => loadConfig({ MARKET_BETTING_CLOSE_BUFFER_MS: '60000' })).toThrow(ConfigError);
  });

  it('RFQ trading, price feed and resolution defaults (docs/configuration.md)', () => {
    const c = loadConfig({});
    expect(c.rfq).toEqual({
      quoteWindowMs: 500,
      maxDeadlineMs: 60000,
      sweepEveryMs: 1000,
      minStakeMicros: 500_000n,
      maxStakeMicros: 10_000_000_000n,
      maxPayoutMicros: 50_000_000_000n,
      maxLegs: 9,
      maxOpenPerUser: 10,
      maxWaiters: 1000,
      maxWaitersPerUser: 100,
      signingChainId: 8453,
      eip712Name: 'contest-rfq-service',
      eip712Salt: RFQ_EIP712_SALT_DEV,
      minFillMicros: 10_000n,
      mmMaxQuotesPerSecond: 100,
    });
    expect(c.prices).toMatchObject({
      sources: ['demo'],
      quorum: 1,
      maxAgeMs: 60_000,
      timeoutMs: 2000,
      retries: 2,
      demoSeed: 'demo',
      demoSpreadBps: 50,
    });
    expect(c.prices.binance).toEqual({
      apiUrl: 'https://api.binance.com',
      symbols: { BTC: 'BTCUSDT', ETH: 'ETHUSDT', SOL: 'SOLUSDT', XRP: 'XRPUSDT', HYPE: 'HYPEUSDT' },
    });
    expect(c.prices.coinbase.apiUrl).toBe('https://api.exchange.coinbase.com');
    expect(c.prices.coinbase.products.BTC).toBe('BTC-USD');
    expect(c.resolution).toEqual({ delayMs: 2000, maxWaitMs: 3600000, disputeVoidAfterMs: 86_400_000 });
    expect(Object.isFrozen(c.rfq)).toBe(true);
  });

  it('reads the RFQ settings', () => {
    const c = loadConfig({
      RFQ_QUOTE_WINDOW_MS: '250',
      RFQ_MAX_DEADLINE_MS: '30000',
      RFQ_MIN_STAKE_MICROS: '10000',
      RFQ_MAX_LEGS: '3',
      RFQ_SIGNING_CHAIN_ID: '84532',
      RFQ_EIP712_NAME: 'My Venue',
      MM_MAX_QUOTES_PER_SECOND: '5',
      DEMO_PRICE_SEED: 's1',
      DEMO_PRICE_SPREAD_BPS: '0',
      RESOLUTION_DELAY_MS: '0',
      RESOLUTION_MAX_WAIT_MS: '60000',
    });
    expect(c.rfq).toMatchObject({
      quoteWindowMs: 250,
      maxDeadlineMs: 30000,
      minStakeMicros: 10_000n,
      maxLegs: 3,
      signingChainId: 84532,
      eip712Name: 'My Venue',
      mmMaxQuotesPerSecond: 5,
    });
    expect(c.prices).toMatchObject({ sources: ['demo'], demoSeed: 's1', demoSpreadBps: 0 });
    expect(c.resolution).toEqual({ delayMs: 0, maxWaitMs: 60000, disputeVoidAfterMs: 86_400_000 });
  });

  it('takes the EIP-712 salt and the minimum fill; production needs its own salt', () => {
    const salt = `0x${'Ab'.repeat(32)}`;
    expect(loadConfig({ RFQ_EIP712_SALT: salt, RFQ_MIN_FILL_MICROS: '250000' }).rfq).toMatchObject({
      eip712Salt: salt.toLowerCase(),
      minFillMicros: 250_000n,
    });
    expect(() => loadConfig({ RFQ_EIP712_SALT: '0x1234' })).toThrow(/RFQ_EIP712_SALT: must be 0x \+ 64 hex digits/);
    expect(() => loadConfig({ RFQ_MIN_FILL_MICROS: '500001' })).toThrow(/RFQ_MIN_FILL_MICROS: must not exceed RFQ_MIN_STAKE_MICROS/);
    expect(() => loadConfig({ RFQ_MIN_FILL_MICROS: '0' })).toThrow(/RFQ_MIN_FILL_MICROS/);
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y', OPERATOR_TOKEN: 'x'.repeat(16) };
    expect(() => loadConfig(prod)).toThrow(/RFQ_EIP712_SALT: required when NODE_ENV=production/);
    expect(() => loadConfig({ ...prod, RFQ_EIP712_SALT: RFQ_EIP712_SALT_DEV })).toThrow(/RFQ_EIP712_SALT: is the development salt/);
  });

  it('refuses a signing chain the wallet sign-in does not accept', () => {
    expect(() => loadConfig({ SIWE_CHAIN_IDS: '1,84532' })).toThrow(/RFQ_SIGNING_CHAIN_ID: must be one of SIWE_CHAIN_IDS \(1,84532\)/);
    expect(loadConfig({ SIWE_CHAIN_IDS: '1', RFQ_SIGNING_CHAIN_ID: '1' }).rfq.signingChainId).toBe(1);
  });

  it('the quote window must leave room before the longest deadline (window < max deadline - 100 ms)', () => {
    expect(loadConfig({ RFQ_QUOTE_WINDOW_MS: '1899', RFQ_MAX_DEADLINE_MS: '2000' }).rfq.quoteWindowMs).toBe(1899);
    expect(() => loadConfig({ RFQ_QUOTE_WINDOW_MS: '1900', RFQ_MAX_DEADLINE_MS: '2000' })).toThrow(
      /RFQ_QUOTE_WINDOW_MS: must be less than RFQ_MAX_DEADLINE_MS - 100 \(1900 ms\)/,
    );
  });

  it('lists every bad RFQ, price and resolution setting at once', () => {
    let caught: unknown;
    try {
      loadConfig({
        RFQ_MIN_STAKE_MICROS: '2000000',
        RFQ_MAX_STAKE_MICROS: '1000000',
        RFQ_MAX_PAYOUT_MICROS: '2000000',
        MARKET_ASSETS: 'BTC,DOGE',
        RESOLUTION_DELAY_MS: '5000',
        RESOLUTION_MAX_WAIT_MS: '5000',
      });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'RFQ_MIN_STAKE_MICROS: must not exceed RFQ_MAX_STAKE_MICROS',
      'RFQ_MAX_PAYOUT_MICROS: must be at least 2000200 (the minimum stake at the lowest odds), or no order is acceptable',
      'MARKET_ASSETS: the demo price feed has no price for DOGE (it prices BTC, ETH, SOL, XRP, HYPE)',
      'RESOLUTION_MAX_WAIT_MS: must be greater than RESOLUTION_DELAY_MS',
    ]);
  });

  it('range checks on the RFQ settings', () => {
    for (const [key, value] of [
      ['RFQ_MAX_LEGS', '10'],
      ['RFQ_MAX_LEGS', '0'],
      ['RFQ_MIN_STAKE_MICROS', '9999'],
      ['RFQ_QUOTE_WINDOW_MS', 'soon'],
      ['RFQ_EIP712_NAME', 'é'],
      ['PRICE_QUORUM', '0'],
      ['BINANCE_SYMBOLS', 'BTC=BTCUSDT'],
      ['COINBASE_API_URL', 'ftp://x'],
      ['CHAIN_RPC_URL', 'redis://x'],
      ['DEMO_PRICE_SPREAD_BPS', '10000'],
      ['MM_MAX_QUOTES_PER_SECOND', '0'],
    ]) {
      expect(() => loadConfig({ [key!]: value }), `${key}=${value}`).toThrow(new RegExp(`^invalid configuration:\\n  - ${key}:`));
    }
  });
});

describe('price sources (docs/prices.md)', () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (err) {
      return (err as ConfigError).problems;
    }
  };

  it('PRICE_FEED takes a list; the quorum defaults to a majority; the source settings are read', () => {
    const c = loadConfig({
      PRICE_FEED: 'chainlink, binance,coinbase',
      CHAIN_RPC_URL: 'ws://127.0.0.1:8545',
      CHAINLINK_FEEDS: 'BTC:0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419,ETH:0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8410',
      BINANCE_API_URL: 'http://127.0.0.1:9001/',
      PRICE_MAX_AGE_MS: '5000',
      DISPUTE_VOID_AFTER_MS: '0',
    });
    expect(c.prices).toMatchObject({ sources: ['chainlink', 'binance', 'coinbase'], quorum: 2, maxAgeMs: 5000 });
    expect(c.prices.binance.apiUrl).toBe('http://127.0.0.1:9001');
    expect(c.prices.chainlink).toEqual({
      rpcUrl: 'ws://127.0.0.1:8545',
      feeds: { BTC: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419', ETH: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8410' },
    });
    expect(c.chainRpcUrl).toBe('ws://127.0.0.1:8545');
    expect(c.resolution.disputeVoidAfterMs).toBe(0);
    expect(loadConfig({ PRICE_FEED: 'binance,coinbase' }).prices.quorum).toBe(2);
    expect(loadConfig({ PRICE_FEED: 'binance,coinbase', PRICE_QUORUM: '1' }).prices.quorum).toBe(1);
  });

  it('names every bad combination', () => {
    expect(problems({ PRICE_FEED: 'binance,binance' })).toContain('PRICE_FEED: binance listed more than once');
    expect(problems({ PRICE_FEED: 'binance,coinbase', PRICE_QUORUM: '3' })).toContain(
      'PRICE_QUORUM: 3 is more than the 2 source(s) PRICE_FEED lists',
    );
    expect(problems({ PRICE_FEED: 'chainlink' })).toEqual([
      'CHAIN_RPC_URL: required when PRICE_FEED lists chainlink',
      'CHAINLINK_FEEDS: required when PRICE_FEED lists chainlink (ASSET:0xaggregator,...)',
      ...['BTC', 'ETH', 'SOL', 'XRP', 'HYPE'].map((a) => `PRICE_FEED: ${a} is priced by none of the listed sources, fewer than PRICE_QUORUM (1)`),
    ]);
    expect(problems({ PRICE_FEED: 'binance,coinbase', BINANCE_SYMBOLS: 'BTC:BTCUSDT', MARKET_ASSETS: 'BTC,ETH' })).toEqual([
      'PRICE_FEED: ETH is priced by coinbase of the listed sources, fewer than PRICE_QUORUM (2)',
    ]);
    expect(problems({ PRICE_FEED: 'demo,pyth' })).toEqual(['PRICE_FEED.1: Invalid option: expected one of "demo"|"chainlink"|"binance"|"coinbase"']);
    expect(problems({ BINANCE_SYMBOLS: 'BTC:BTCUSDT,BTC:XBT' })).toEqual(['BINANCE_SYMBOLS: asset BTC listed twice']);
  });

  it('NODE_ENV=production refuses the demo prices unless ALLOW_DEMO_PRICES=true', () => {
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y', OPERATOR_TOKEN: 'x'.repeat(16) };
    expect(problems(prod)).toContain(
      'PRICE_FEED: `demo` is refused when NODE_ENV=production (windows would resolve from made-up prices); list real sources, or set ALLOW_DEMO_PRICES=true',
    );
    expect(problems({ ...prod, PRICE_FEED: 'binance,coinbase' }).filter((p) => p.startsWith('PRICE_FEED'))).toEqual([]);
    expect(problems({ ...prod, ALLOW_DEMO_PRICES: 'true' }).filter((p) => p.startsWith('PRICE_FEED'))).toEqual([]);
    expect(problems({ PRICE_FEED: 'demo' }).filter((p) => p.startsWith('PRICE_FEED'))).toEqual([]);
  });
});

describe('MIGRATE_ON_START', () => {
  const prod = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://x',
    OPERATOR_TOKEN: 'o'.repeat(16),
    PRIVY_APP_ID: 'a',
    PRIVY_VERIFICATION_KEY: P256_PEM,
    ALLOW_DEMO_SETTLEMENT: 'true',
    ALLOW_DEMO_PRICES: 'true',
    RFQ_EIP712_SALT: `0x${'11'.repeat(32)}`,
  };
  it('migrates at start outside production, not in production; either default can be overridden; a bad value is named', () => {
    expect(loadConfig({}).migrateOnStart).toBe(true);
    expect(loadConfig(prod).migrateOnStart).toBe(false);
    expect(loadConfig({ ...prod, MIGRATE_ON_START: 'true' }).migrateOnStart).toBe(true);
    expect(loadConfig({ MIGRATE_ON_START: '0' }).migrateOnStart).toBe(false);
    expect(() => loadConfig({ MIGRATE_ON_START: 'yes' })).toThrow(/MIGRATE_ON_START/);
  });
});

describe('the probe port of a workers process', () => {
  it('is PORT when set, else 0 (a free port), never the API default 3000', () => {
    expect(loadConfig({}).probePort).toBe(0);
    expect(loadConfig({ PORT: '9100' }).probePort).toBe(9100);
    expect(loadConfig({ PORT: '0' }).probePort).toBe(0);
  });
});
