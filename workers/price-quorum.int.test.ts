// Windows resolved by a quorum of real price sources through a real service process (PostgreSQL + Redis):
// PRICE_FEED=chainlink,binance,coinbase, PRICE_QUORUM=2, against an anvil chain with mock aggregators and
// local servers answering in Binance's and Coinbase's formats (nothing leaves 127.0.0.1), on 8-second windows.
//   BTC: chainlink and binance up (coinbase's 60 s candle cannot see inside 8 s) -> YES, the up leg pays.
//   ETH: coinbase down (503), chainlink and binance down -> NO: one source down still resolves.
//   SOL: chainlink down, binance up, coinbase no candles -> DISPUTED until the operator resolves it.
// Every reading is visible in GET /v1/markets/{id}, and the ledger checks clean.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createWalletClient, http, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type Orm } from '../src/db/orm.js';
import { ensureWindows } from '../src/domain/markets/markets.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../src/testing/anvil.js';
import { fundedUser } from '../src/testing/funding.js';
import { randomWallet } from '../src/testing/identity.js';
import { ledgerProblems } from '../src/testing/money.js';
import { fillPosition, rfqTestDeps } from '../src/testing/position-fill.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../src/testing/postgres.js';
import { startBinanceServer, startCoinbaseServer, type PriceServer } from '../src/testing/price-servers.js';
import { startServiceProcess, type ServiceProcess } from '../src/testing/service-process.js';

const DURATION = 8;
const BUFFER = 3000;
const OPERATOR = 'price-quorum-operator-token';
const build = JSON.parse(readFileSync(new URL('../contracts/build/MockAggregator.json', import.meta.url), 'utf8')) as {
  abi: Abi;
  bytecode: Hex;
};

let database: TestDatabase;
let chain: Anvil;
let binance: PriceServer;
let coinbase: PriceServer;
let svc: ServiceProcess;
let orm: Orm;
let sql: pg.Client;
const em = () => orm.em.fork();
// The window, chosen once the service runs: its start and end drive every source's prices.
let S = 0;
let E = 0;
let wallet: ReturnType<typeof walletOf>;
const walletOf = (url: string) =>
  createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS[0]), chain: anvilChain, transport: http(url) }).extend(publicActions);
const feeds: Record<string, Hex> = {};

/** The next window starting at least 8 s from now, with its Chainlink rounds (written at block timestamps before its start and end). */
async function chooseWindow(): Promise<void> {
  const d = DURATION * 1000;
  S = Math.ceil((Date.now() + 8000) / d) * d;
  E = S + d;
  // Chainlink: BTC up, ETH and SOL down; the open round a few seconds before the start, the close round before the end.
  const rounds: Array<[string, bigint, number]> = [
    ['BTC', 9_700_000_000_000n, S - 6000],
    ['ETH', 300_000_000_000n, S - 5000],
    ['SOL', 15_000_000_000n, S - 4000],
    ['BTC', 9_710_000_000_000n, E - 3000],
    ['ETH', 299_000_000_000n, E - 2000],
    ['SOL', 14_900_000_000n, E - 1000],
  ];
  for (const [asset, answer, atMs] of rounds) {
    await chain.rpc('evm_setNextBlockTimestamp', [atMs / 1000]);
    const hash = await wallet.writeContract({ address: feeds[asset]!, abi: build.abi, functionName: 'submit', args: [answer] });
    await wallet.waitForTransactionReceipt({ hash });
  }
}

// Binance 1 s klines: BTC and SOL close higher than they opened, ETH lower.
const binancePrice = (symbol: string, t: number) => {
  const base = { BTCUSDT: 97_000, ETHUSDT: 3_000, SOLUSDT: 150 }[symbol];
  if (base === undefined) return null;
  const moved = t >= E - 1000 ? (symbol === 'ETHUSDT' ? -1 : 1) : 0;
  return `${base + moved}.50000000`;
};

beforeAll(async () => {
  database = await createTestDatabase('pquorum');
  chain = await startAnvil();
  binance = await startBinanceServer(binancePrice);
  coinbase = await startCoinbaseServer((product) => (product === 'BTC-USD' ? '97000.25' : null));
  coinbase.faultFor = (url) => (url.pathname.includes('ETH-USD') ? { status: 503 } : undefined);

  wallet = walletOf(chain.url);
  for (const asset of ['BTC', 'ETH', 'SOL']) {
    const hash = await wallet.deployContract({ abi: build.abi, bytecode: build.bytecode, args: [8, `${asset} / USD`, 1] });
    feeds[asset] = (await wallet.waitForTransactionReceipt({ hash })).contractAddress!;
  }
  svc = await startServiceProcess({
    env: {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniquePrefix('pquorum'),
      RATE_LIMIT_PER_MINUTE: '0',
      OPERATOR_TOKEN: OPERATOR,
      MARKET_ASSETS: 'BTC,ETH,SOL',
      MARKET_DURATIONS: String(DURATION),
      MARKET_BETTING_CLOSE_BUFFER_MS: String(BUFFER),
      RESOLUTION_DELAY_MS: '0',
      RESOLUTION_MAX_WAIT_MS: '4000',
      PRICE_FEED: 'chainlink,binance,coinbase',
      PRICE_QUORUM: '2',
      CHAINLINK_MAX_AGE_MS: '60000',
      PRICE_PROBE_EVERY_MS: '2000', // re-probed often: the aggregators have no round before the test writes them
      PRICE_SOURCE_TIMEOUT_MS: '1000',
      PRICE_SOURCE_RETRIES: '1',
      CHAIN_RPC_URL: chain.url,
      CHAINLINK_FEEDS: Object.entries(feeds)
        .map(([a, x]) => `${a}:${x}`)
        .join(','),
      BINANCE_API_URL: binance.url,
      COINBASE_API_URL: coinbase.url,
    },
  });
  orm = await createOrm({ databaseUrl: database.url });
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
}, 90_000);

afterAll(async () => {
  await sql?.end();
  await orm?.close(true);
  await svc?.stop();
  await binance?.close();
  await coinbase?.close();
  await chain?.stop();
  await database?.drop();
});

const market = async (id: number) => (await (await fetch(`${svc.baseUrl}/v1/markets/${id}`)).json()).market;
const status = async (id: string) => (await sql.query('select status from positions where id = $1', [id])).rows[0].status as string;

describe('a quorum of chainlink, binance and coinbase', () => {
  it('agreement pays, one source down still resolves, a split stays DISPUTED until the operator resolves it', async () => {
    await chooseWindow();
    const taker = { wallet: randomWallet(), userId: '' };
    const maker = randomWallet();
    taker.userId = await fundedUser(em, taker.wallet.address, 100_000_000n);
    await fundedUser(em, maker.address, 100_000_000n);
    await ensureWindows(
      em(),
      ['BTC', 'ETH', 'SOL'].map((asset) => ({ asset, durationSecs: DURATION, startAtMs: S })),
    );
    const ids = Object.fromEntries(
      (await sql.query(`select asset, market_id from markets where kind = 'rfq_window' and start_at_ms = $1`, [S])).rows.map((r) => [
        r.asset as string,
        Number(r.market_id),
      ]),
    ) as Record<'BTC' | 'ETH' | 'SOL', number>;
    const deps = rfqTestDeps(BUFFER, 500);
    const [btc, eth, sol] = await Promise.all(
      (['BTC', 'ETH', 'SOL'] as const).map((a) => fillPosition(orm, deps, { taker, maker, legs: [[ids[a], 'up']], oddsBps: 19_000 })),
    );

    await expect.poll(() => status(btc!), { timeout: 40_000, interval: 250 }).toBe('won');
    await expect.poll(() => status(eth!), { timeout: 40_000, interval: 250 }).toBe('lost');
    await expect.poll(async () => (await market(ids.SOL)).status, { timeout: 40_000, interval: 250 }).toBe('DISPUTED');

    const b = await market(ids.BTC);
    expect(b).toMatchObject({
      status: 'RESOLVED',
      outcome: 'YES',
      price_source: 'chainlink',
      open_price_micros: '97000000000',
      close_price_micros: '97100000000',
      resolution_rule: {
        sources: ['chainlink', 'binance', 'coinbase'],
        quorum: 2,
        max_age_ms: { chainlink: 60_000, binance: 2000, coinbase: 60_000 },
      },
    });
    expect(b.sources.map((x: { source: string; vote: string }) => [x.source, x.vote])).toEqual([
      ['chainlink', 'YES'],
      ['binance', 'YES'],
      ['coinbase', expect.stringMatching(/^(stale|NO)$/)], // one 60 s candle for both, or two equal ones
    ]);
    expect(b.sources[0].open).toEqual({
      price_micros: '97000000000',
      observed_at_ms: S - 6000,
      ref: `round:${(1n << 64n) | 1n}`,
      confidence_micros: null,
    });
    expect(b.sources[1].close).toEqual({
      price_micros: '97001500000',
      observed_at_ms: E - 1,
      ref: `kline:${E - 1000}`,
      confidence_micros: null,
    });

    const e = await market(ids.ETH);
    expect(e).toMatchObject({ status: 'RESOLVED', outcome: 'NO', price_source: 'chainlink' });
    expect(e.sources.map((x: { source: string; vote: string }) => [x.source, x.vote])).toEqual([
      ['chainlink', 'NO'],
      ['binance', 'NO'],
      ['coinbase', 'missing'],
    ]);
    expect(e.sources[2].abstained_reason).toBe('source_error'); // a code: the 503's text stays in the operator's record

    const s = await market(ids.SOL);
    expect(s).toMatchObject({ outcome: null, dispute: { reason: 'disagreement' } });
    expect(
      s.sources.map((x: { source: string; vote: string; abstained_reason: string | null }) => [x.source, x.vote, x.abstained_reason]),
    ).toEqual([
      ['chainlink', 'NO', null],
      ['binance', 'YES', null],
      ['coinbase', 'missing', 'not_published_yet'], // no SOL-USD candle (yet): never an older one
    ]);
    expect(await status(sol!)).toBe('open');

    const res = await fetch(`${svc.baseUrl}/v1/admin/market-windows/${ids.SOL}/resolve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'YES' }),
    });
    expect(res.status).toBe(200);
    await expect.poll(() => status(sol!), { timeout: 30_000, interval: 250 }).toBe('won');
    expect(await market(ids.SOL)).toMatchObject({
      status: 'RESOLVED',
      outcome: 'YES',
      price_source: 'operator',
      dispute: { reason: 'disagreement' },
    });

    const ready = await (await fetch(`${svc.baseUrl}/readyz`)).json();
    expect(ready).toMatchObject({ status: 'degraded', checks: { prices: 'degraded' } }); // coinbase's ETH product answers 503
    expect(ready.price_sources.map((x: { source: string; state: string }) => [x.source, x.state])).toEqual([
      ['chainlink', 'ok'],
      ['binance', 'ok'],
      ['coinbase', 'failing'],
    ]);
    expect(ready.price_sources[2]).toMatchObject({
      reason: 'source_error',
      last_success_at_ms: expect.any(Number),
      last_failure_at_ms: expect.any(Number),
    });
    const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^price_source_failures_total\{source="coinbase"\} 2$/m); // ETH's open and close, after their retry
    expect(await ledgerProblems(sql)).toEqual([]);
  });
});
