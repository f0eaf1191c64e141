// loadConfig's RFQ trading and resolution settings (docs/configuration.md): the defaults, what is read, and
// every bad value and combination named at once. The price sources: src/config/prices.test.ts; the
// deployment, identity and process settings: src/config/load.test.ts.
import { describe, expect, it } from 'vitest';
import { RFQ_EIP712_SALT_DEV } from '../constants.js';
import { ConfigError, loadConfig } from './load.js';

describe('loadConfig: RFQ trading and resolution', () => {
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
      admission: { maxInFlight: 256, maxLoopDelayMs: 100, maxCreateMs: 100 },
      signingChainId: 8453,
      eip712Name: 'contest-rfq-service',
      eip712Salt: RFQ_EIP712_SALT_DEV,
      minFillMicros: 10_000n,
      mmMaxQuotesPerSecond: 100,
    });
    // The price sources' defaults: src/config/prices.test.ts.
    expect(c.prices).toMatchObject({ sources: ['demo'], quorum: 1, timeoutMs: 2000, retries: 2, demoSeed: 'demo', demoSpreadBps: 50 });
    expect(c.resolution).toEqual({ delayMs: 2000, maxWaitMs: 3600000, disputeVoidAfterMs: 86_400_000, overdueAfterMs: 60_000 });
    expect(Object.isFrozen(c.rfq)).toBe(true);
  });

  it('admission control: the loop-delay and create-latency bounds follow the quote window unless set; 0 turns them off, or admits none', () => {
    expect(loadConfig({ RFQ_QUOTE_WINDOW_MS: '2000' }).rfq.admission).toEqual({ maxInFlight: 256, maxLoopDelayMs: 400, maxCreateMs: 400 });
    expect(
      loadConfig({ RFQ_ADMISSION_MAX_IN_FLIGHT: '0', RFQ_ADMISSION_MAX_LOOP_DELAY_MS: '0', RFQ_ADMISSION_MAX_CREATE_MS: '0' }).rfq
        .admission,
    ).toEqual({ maxInFlight: 0, maxLoopDelayMs: 0, maxCreateMs: 0 });
    expect(loadConfig({ RFQ_ADMISSION_MAX_LOOP_DELAY_MS: '150' }).rfq.admission.maxLoopDelayMs).toBe(150);
    expect(loadConfig({ RFQ_ADMISSION_MAX_CREATE_MS: '80' }).rfq.admission.maxCreateMs).toBe(80);
    expect(() => loadConfig({ RFQ_ADMISSION_MAX_IN_FLIGHT: '-1' })).toThrow(/RFQ_ADMISSION_MAX_IN_FLIGHT/);
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
    expect(c.resolution).toEqual({ delayMs: 0, maxWaitMs: 60000, disputeVoidAfterMs: 86_400_000, overdueAfterMs: 60_000 });
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
