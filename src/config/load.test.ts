// loadConfig's deployment, identity and process settings: the embedded defaults, limits, production's
// requirements, Privy and chains, MIGRATE_ON_START and the workers' probe port. RFQ trading, prices and
// resolution: src/config/rfq.test.ts.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load.js';
import { AUTH_DOMAIN_DEFAULT } from './schema.js';

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
      assets: ['BTC', 'ETH', 'SOL', 'XRP'],
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

  it('METRICS_PORT: a port of its own (0: a free one), never PORT; unset: /metrics on PORT', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: ' ' }).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ METRICS_PORT: '0', PORT: '0' }).metricsPort).toBe(0);
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(/METRICS_PORT: must differ from PORT/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: 'metrics' })).toThrow(/METRICS_PORT/);
  });

  it('DATABASE_POOL_MAX: the ORM pool size, 10 by default, at least 1', () => {
    expect(loadConfig({}).databasePoolMax).toBe(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '3' }).databasePoolMax).toBe(3);
    expect(() => loadConfig({ DATABASE_POOL_MAX: '0' })).toThrow(ConfigError);
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

  it('production asks for Privy only when Privy sign-in is configured (without it: SIWE only), and for the SIWE origin', () => {
    const prod = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://u@h/db',
      OPERATOR_TOKEN: 'x'.repeat(32),
      ALLOW_DEMO_SETTLEMENT: 'true',
      ALLOW_DEMO_PRICES: 'true',
      RFQ_EIP712_SALT: `0x${'11'.repeat(32)}`,
    };
    expect(() => loadConfig(prod)).toThrow(/SIWE_DOMAIN \/ PUBLIC_URL: one is required when NODE_ENV=production/);
    expect(loadConfig({ ...prod, SIWE_DOMAIN: 'app.example.com' }).privy.appId).toBeUndefined();
    expect(loadConfig({ ...prod, PUBLIC_URL: 'https://api.example.com' }).siwe.domain).toBe('api.example.com');
    const withPrivy = loadConfig({ ...prod, SIWE_DOMAIN: 'app.example.com', PRIVY_APP_ID: 'app', PRIVY_VERIFICATION_KEY: P256_PEM });
    expect(withPrivy.privy.appId).toBe('app');
    expect(() => loadConfig({ ...prod, SIWE_DOMAIN: 'app.example.com', PRIVY_APP_ID: 'app' })).toThrow(
      /PRIVY_APP_ID \/ PRIVY_VERIFICATION_KEY: set both/,
    );
  });

  it('the migration step asks for the database settings only', () => {
    const env = { NODE_ENV: 'production', DATABASE_URL: 'postgres://u@h/db', SETTLEMENT_MODE: 'onchain', PORT: 'not a port' };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    const c = loadConfig(env, { scope: 'migrate' });
    expect(c).toMatchObject({ nodeEnv: 'production', databaseUrl: 'postgres://u@h/db', deployment: 'postgres', migrateOnStart: false });
    expect(() => loadConfig({ NODE_ENV: 'production' }, { scope: 'migrate' })).toThrow(/DATABASE_URL: required/);
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'mysql://x' }, { scope: 'migrate' })).toThrow(
      /DATABASE_URL: must be a postgres/,
    );
  });

  it('accepts only a P-256 SPKI PEM as PRIVY_VERIFICATION_KEY, also with \\n escapes on one line', () => {
    expect(loadConfig({ PRIVY_APP_ID: 'app', PRIVY_VERIFICATION_KEY: P256_PEM.replace(/\n/g, '\\n') }).privy.verificationKey).toBe(
      P256_PEM,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => loadConfig({ PRIVY_APP_ID: 'app', PRIVY_VERIFICATION_KEY: rsa })).toThrow(
      /PRIVY_VERIFICATION_KEY: must be an SPKI PEM P-256/,
    );
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
});

describe('MIGRATE_ON_START', () => {
  const prod = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://x',
    OPERATOR_TOKEN: 'o'.repeat(16),
    SIWE_DOMAIN: 'app.example.com',
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
