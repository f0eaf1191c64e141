// Smoke test of RFQ trading on the zero-setup deployment: embedded PGlite, the in-process bus, one
// process. A maker quotes over the WebSocket and a best-mode order fills through it, then through
// examples/taker-client.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomWallet } from '../testing/identity.js';
import { uniquePrefix } from '../testing/postgres.js';
import { balances, buildOrder, currentMarketId, fetchDomain, fundWallet, postOrder, readyMaker, type MakerConnection } from '../testing/rfq-trade.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SIWE_DOMAIN = 'rfq-embedded.test';
const OPERATOR = `rfq-embedded-${randomBytes(12).toString('hex')}`;
let dataDir: string;
let svc: ServiceProcess;
let mm: MakerConnection | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'crfq-rfq-'));
  svc = await startServiceProcess({
    env: {
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      DEMO_DATA: 'false',
      QUEUE_PREFIX: uniquePrefix('rfqemb'),
      SIWE_DOMAIN,
      OPERATOR_TOKEN: OPERATOR,
      RFQ_QUOTE_WINDOW_MS: '2000',
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

  // The example taker client, as the README runs it (a day window: its betting never closes mid-test).
  const key = generatePrivateKey();
  const exampleTaker = await fundWallet(svc.baseUrl, privateKeyToAccount(key), SIWE_DOMAIN, 2_000_000);
  // Asynchronously: the maker answering the RFQ lives in this process's event loop.
  const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/taker-client.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', SESSION: exampleTaker.token, TAKER_PRIVATE_KEY: key, BASE_URL: svc.baseUrl, DURATION_SECS: '86400' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stdout).toMatch(/^filled 1000000 of 1000000 micros at 3x: pays 3000000 micros/m);
  expect(await balances(svc.baseUrl, exampleTaker.token)).toEqual({ available: '1000000', reserved: '1000000' });
});
