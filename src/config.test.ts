import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, AUTH_DOMAIN_DEFAULT } from './config.js';

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
    });
    expect(c.markets).toEqual({
      assets: ['BTC', 'ETH', 'SOL', 'XRP', 'HYPE'],
      durations: [60, 300, 900, 3600, 14400, 86400],
      bettingCloseBufferMs: 10000,
      lookupHorizonMs: 604800000,
    });
    expect(c.depositSyncWaitMs).toBe(5000);
    expect(c.settlementMode).toBe('demo');
    expect(Object.isFrozen(c) && Object.isFrozen(c.mm)).toBe(true);
  });

  it('picks the deployment from DATABASE_URL and REDIS_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).deployment).toBe('postgres');
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db', REDIS_URL: 'redis://h:6379' }).deployment).toBe('production');
  });

  it('the default AUTH_DOMAIN is exactly 35 ASCII bytes', () => {
    expect(Buffer.byteLength(AUTH_DOMAIN_DEFAULT, 'ascii')).toBe(35);
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

  it('refuses half a Privy configuration and Redis without PostgreSQL', () => {
    expect(() => loadConfig({ PRIVY_APP_ID: 'app' })).toThrow(/PRIVY_APP_ID/);
    expect(() => loadConfig({ REDIS_URL: 'redis://h:6379' })).toThrow(/REDIS_URL: requires DATABASE_URL/);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '' }).deployment).toBe('embedded');
  });
});
