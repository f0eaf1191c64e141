// Start-up and the price sources (docs/prices.md, "Probes", "Which sources to run in production"):
// - NODE_ENV=production refuses to start (exit 78) when an offered asset is listed by fewer than PRICE_QUORUM
//   sources by their own listing (stand-ins' exchangeInfo, instruments, Hermes), naming the asset and the sources;
//   with the assets they list it starts, each source `ok`.
// - As an operator would try it with no network (every source's address answering nothing, Chainlink feeds at
//   addresses holding no contract): before anyone trades, /v1/admin/status and crfq_component_up say every source
//   is down, never up.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, migrate } from './db/orm.js';
import { startAnvil, type Anvil } from './testing/anvil.js';
import { createTestPrivy } from './testing/identity.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from './testing/postgres.js';
import { startOkxServer, startPythServer } from './testing/price-servers-more.js';
import { startBinanceServer, type PriceServer } from './testing/price-servers.js';
import { startServiceProcess } from './testing/service-process.js';

const BTC_ID = 'e62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43';
const ETH_ID = 'ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace';
let database: TestDatabase;
let servers: PriceServer[] = [];
let chain: Anvil;

beforeAll(async () => {
  database = await createTestDatabase('pstart');
  const orm = await createOrm({ databaseUrl: database.url });
  await migrate(orm); // production does not migrate at start
  await orm.close(true);
  servers = [
    await startBinanceServer(() => '97000.50', { listed: (s) => s === 'BTCUSDT' }),
    await startOkxServer(() => '97000.50', { listed: (i) => i === 'BTC-USDT' || i === 'ETH-USDT' }),
    await startPythServer(() => '97000.50', { apiKey: 'k', listed: (id) => id === BTC_ID || id === ETH_ID }),
  ];
  chain = await startAnvil();
}, 60_000);
afterAll(async () => {
  for (const s of servers) await s.close();
  await chain?.stop();
  await database?.drop();
});

const production = async () => ({
  NODE_ENV: 'production',
  DATABASE_URL: database.url,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: uniquePrefix('pstart'),
  OPERATOR_TOKEN: `pstart-operator-${randomUUID()}`,
  RFQ_EIP712_SALT: `0x${'5a'.repeat(32)}`,
  SIWE_DOMAIN: 'localhost:3000',
  ALLOW_DEMO_SETTLEMENT: 'true', // play money: this test is about prices
  ...(await createTestPrivy()).env,
  PRICE_FEED: 'binance,okx,pyth',
  PRICE_QUORUM: '2',
  BINANCE_API_URL: servers[0]!.url,
  OKX_API_URL: servers[1]!.url,
  PYTH_API_URL: servers[2]!.url,
  PYTH_API_KEY: 'k',
});

describe('start-up checks the offered assets against the sources', () => {
  it('production refuses an asset fewer than PRICE_QUORUM sources list (exit 78, naming it and the sources), starts without it', async () => {
    const env = { ...(await production()), MARKET_ASSETS: 'BTC,ETH,SOL' };
    const err = await startServiceProcess({ env, timeoutMs: 30_000 }).then(
      () => new Error('started'),
      (e: Error) => e,
    );
    expect(err.message).toMatch(/exited \(78\)/);
    expect(err.message).toContain(
      'SOL is listed by 0 of the price sources (binance (does not list it), okx (does not list it), pyth (does not list it))',
    );
    expect(err.message).not.toMatch(/ETH is listed/); // okx and pyth list ETH: a quorum of 2

    const svc = await startServiceProcess({ env: { ...env, MARKET_ASSETS: 'BTC,ETH' }, timeoutMs: 30_000 });
    try {
      const ready = await (await fetch(`${svc.baseUrl}/readyz`)).json();
      expect(ready.price_sources.map((s: { source: string; state: string }) => [s.source, s.state])).toEqual([
        ['binance', 'ok'],
        ['okx', 'ok'],
        ['pyth', 'ok'],
      ]);
    } finally {
      expect(await svc.stop()).toBe(0);
    }
  }, 90_000);

  it('with no network, every source is reported down before anyone trades, never up', async () => {
    const nowhere = 'http://127.0.0.1:9';
    const svc = await startServiceProcess({
      env: {
        NODE_ENV: 'test',
        DATABASE_URL: database.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: uniquePrefix('pstart'),
        OPERATOR_TOKEN: 'pstart-operator-token-0123',
        MARKET_ASSETS: 'BTC',
        PRICE_FEED: 'binance,coinbase,chainlink',
        PRICE_SOURCE_TIMEOUT_MS: '300',
        PRICE_SOURCE_RETRIES: '0',
        BINANCE_API_URL: nowhere,
        COINBASE_API_URL: nowhere,
        CHAIN_RPC_URL: chain.url,
        CHAINLINK_FEEDS: 'BTC:0x000000000000000000000000000000000000dEaD', // no contract there
      },
      timeoutMs: 30_000,
    });
    try {
      const status = await (
        await fetch(`${svc.baseUrl}/v1/admin/status`, { headers: { authorization: 'Bearer pstart-operator-token-0123' } })
      ).json();
      expect(status.components.map((c: { name: string; state: string }) => [c.name, c.state])).toEqual([
        ['binance', 'failed'],
        ['coinbase', 'failed'],
        ['chainlink', 'failed'],
      ]);
      expect(status.components[0].detail).toMatch(/^unreachable: request failed/);
      expect(status.components[2].detail).toMatch(/^not_listed: lists none of BTC/);
      const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
      for (const source of ['binance', 'coinbase', 'chainlink']) {
        expect(metrics).toMatch(new RegExp(`^crfq_component_up\\{component="${source}",kind="price_source"\\} 0$`, 'm'));
      }
      const ready = await (await fetch(`${svc.baseUrl}/readyz`)).json();
      expect(ready.checks.prices).toBe('degraded');
    } finally {
      expect(await svc.stop()).toBe(0);
    }
  }, 60_000);
});
