// Smoke test of RFQ trading on the zero-setup deployment: embedded PGlite, the in-process bus, one
// process. A maker quotes over the WebSocket and a best-mode order fills through it, then through
// examples/taker-client.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getMarket, getPosition } from '../../generated/openapi/sdk.gen.js';
import { randomWallet } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { demoPriceMicros } from '../domain/prices/demo.js';
import { windowOutcome } from '../domain/prices/feed.js';
import { uniquePrefix } from '../testing/postgres.js';
import {
  balances,
  buildOrder,
  currentMarketId,
  fetchDomain,
  fundWallet,
  postOrder,
  readyMaker,
  type MakerConnection,
} from '../testing/rfq-trade.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { embeddedDataDir } from '../testing/embedded-template.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SIWE_DOMAIN = 'rfq-embedded.test';
const OPERATOR = `rfq-embedded-${randomBytes(12).toString('hex')}`;
let dataDir: string;
let svc: ServiceProcess;
let mm: MakerConnection | undefined;

beforeAll(async () => {
  dataDir = embeddedDataDir('crfq-rfq-');
  svc = await startServiceProcess({
    env: {
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      DEMO_DATA: 'false',
      QUEUE_PREFIX: uniquePrefix('rfqemb'),
      SIWE_DOMAIN,
      OPERATOR_TOKEN: OPERATOR,
      RFQ_QUOTE_WINDOW_MS: '2000',
      // 8-second windows beside the defaults, so a position settles within the test (resolution below).
      MARKET_DURATIONS: '8,300,86400',
      MARKET_BETTING_CLOSE_BUFFER_MS: '3500',
      RESOLUTION_DELAY_MS: '0',
      DEMO_PRICE_SEED: 'rfq-embedded',
    },
  });
});

afterAll(async () => {
  mm?.close();
  await svc?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('a best-mode order fills from a maker quoting over the WebSocket (in-process bus)', async () => {
  const domain = await fetchDomain(svc.baseUrl);
  const maker = await readyMaker(svc.baseUrl, { operatorToken: OPERATOR, siweDomain: SIWE_DOMAIN, domain, collateralMicros: 10_000_000 });
  mm = maker;
  maker.autoQuote(() => ({ odds_bps: 30_000, max_fill_micros: 5_000_000 }));
  const taker = await fundWallet(svc.baseUrl, randomWallet(), SIWE_DOMAIN, 5_000_000);
  const { marketId } = await currentMarketId(svc.baseUrl, 'SOL', 86400);
  const res = await postOrder(
    svc.baseUrl,
    taker,
    domain,
    buildOrder(taker.wallet.address, [{ market_id: marketId, direction: 'up' }], { stake_micros: 1_000_000 }),
  );
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ status: 'filled', filled_stake_micros: '1000000', payout_micros: '3000000', odds_bps: 30_000 });
  expect(await balances(svc.baseUrl, taker.token)).toEqual({ available: '4000000', reserved: '1000000' });
  expect(await balances(svc.baseUrl, maker.party.token)).toEqual({ available: '8000000', reserved: '2000000' });
  expect(await maker.next('quote_result', (f) => f.rfq_id === res.body.rfq_id)).toMatchObject({ status: 'filled' });

  // The example taker client, as docs/getting-started.md runs it (a day window: its betting never closes mid-test).
  const key = generatePrivateKey();
  const exampleTaker = await fundWallet(svc.baseUrl, privateKeyToAccount(key), SIWE_DOMAIN, 2_000_000);
  // Asynchronously: the maker answering the RFQ lives in this process's event loop.
  const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/taker-client.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      SESSION: exampleTaker.token,
      TAKER_PRIVATE_KEY: key,
      BASE_URL: svc.baseUrl,
      DURATION_SECS: '86400',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stdout).toMatch(/^filled 1000000 of 1000000 micros at 3x: pays 3000000 micros/m);
  expect(await balances(svc.baseUrl, exampleTaker.token)).toEqual({ available: '1000000', reserved: '1000000' });
});

it('on the embedded default too, the window resolves from the demo feed and the position pays the winner exactly', async () => {
  const domain = await fetchDomain(svc.baseUrl);
  const maker = mm!;
  const taker = await fundWallet(svc.baseUrl, randomWallet(), SIWE_DOMAIN, 3_000_000);
  // An 8 s window with betting open long enough for the 2 s quote window.
  let w = await currentMarketId(svc.baseUrl, 'ETH', 8);
  while (w.bettingClosesAtMs - Date.now() < 3_000) {
    await new Promise((r) => setTimeout(r, 250));
    w = await currentMarketId(svc.baseUrl, 'ETH', 8);
  }
  const res = await postOrder(
    svc.baseUrl,
    taker,
    domain,
    buildOrder(taker.wallet.address, [{ market_id: w.marketId, direction: 'up' }], { stake_micros: 1_000_000 }),
  );
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ status: 'filled', payout_micros: '3000000' });
  const positionId = res.body.position_id as string;
  const position = async () =>
    (await send(getPosition({ client: sdkClient(svc.baseUrl, taker.token), path: { position_id: positionId } }))).data;
  await expect.poll(async () => (await position())?.status, { timeout: 40_000, interval: 250 }).not.toBe('open');
  const end = w.startAtMs + 8_000;
  const up =
    windowOutcome(demoPriceMicros('rfq-embedded', 'ETH', w.startAtMs, 50)!, demoPriceMicros('rfq-embedded', 'ETH', end, 50)!) === 'YES';
  expect(await position()).toMatchObject({ status: up ? 'won' : 'lost', pnl_micros: up ? '2000000' : '-1000000' });
  expect(await balances(svc.baseUrl, taker.token)).toEqual({ available: up ? '5000000' : '2000000', reserved: '0' });
  const market = (await send(getMarket({ client: sdkClient(svc.baseUrl), path: { market_id: w.marketId } }))).data?.market;
  expect(market).toMatchObject({ status: 'RESOLVED', outcome: up ? 'YES' : 'NO', price_source: 'demo' });
  expect(await maker.next('position_settled', (f) => f.position_id === positionId, 10_000)).toMatchObject({ outcome: up ? 'won' : 'lost' });
});
