// Shared set-up of the positions integration tests (src/http/positions*.int.test.ts): the real service
// (PostgreSQL + Redis, API and workers in one process) on 8-second BTC and ETH windows with the demo price
// feed, an ORM on its database for the fills, and the steps those tests share (a signed-in user, a market
// maker's token, a window's market id, getMarket and the operator's window resolution).
// usePositionsService() registers the hooks; a test file calls it once, at its top level, and reads the
// exported bindings below (set by its beforeAll; each test file has its own module instance).
import { randomBytes, randomUUID } from 'node:crypto';
import { MarketMakerClient } from '@contest-rfq/sdk';
import { afterAll, beforeAll, expect } from 'vitest';
import { createOrm, type Orm } from '../db/orm.js';
import {
  createDeposit,
  createMarketMaker,
  createSession,
  getMarket,
  lookupMarket,
  resolveMarketWindow,
} from '../../generated/openapi/sdk.gen.js';
import { randomWallet, type TestWallet } from './identity.js';
import { sdkClient, send } from './sdk-client.js';
import { startTestService, type TestService } from './test-service.js';

export const DURATION = 8;
export const BUFFER = 3000;
export const SEED = 'positions-itest';
// Set once by usePositionsService's beforeAll, read by the tests.
export let t: TestService;
export let base: string;
export let orm: Orm;
const mmClients: MarketMakerClient[] = [];

/** Starts the service before the file's tests and stops it (and the market makers' clients) after all. */
export function usePositionsService(label: string): void {
  beforeAll(async () => {
    t = await startTestService(label, {
      MARKET_ASSETS: 'BTC,ETH',
      MARKET_DURATIONS: `${DURATION},60`,
      MARKET_BETTING_CLOSE_BUFFER_MS: String(BUFFER),
      // The feed waits 3 s past a window's end: the operator resolves the other window before that.
      RESOLUTION_DELAY_MS: '3000',
      DEMO_PRICE_SEED: SEED,
    });
    base = t.svc.baseUrl;
    orm = await createOrm({ databaseUrl: t.db.url });
  });

  afterAll(async () => {
    await Promise.all(mmClients.map((c) => c.stop()));
    await orm?.close(true);
    await t?.stop();
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const until = async (ms: number) => {
  while (Date.now() < ms) await sleep(Math.min(100, ms - Date.now()));
};

export async function signIn(
  wallet: TestWallet = randomWallet(),
  fund = 0,
): Promise<{ token: string; userId: string; wallet: TestWallet }> {
  const s = await send(
    createSession({
      client: sdkClient(base),
      body: { privy_token: await t.privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
    }),
  );
  expect(s.status).toBe(200);
  const { session_token: token, user_id: userId } = s.data!;
  if (fund) {
    const d = await send(createDeposit({ client: sdkClient(base, token), body: { amount_micros: fund, idempotency_key: randomUUID() } }));
    expect(d.status).toBe(200);
  }
  return { token, userId, wallet };
}

/** A registered market maker's bearer token, from the real WebSocket handshake. */
export async function mmToken(wallet: TestWallet = randomWallet()): Promise<string> {
  const reg = await send(
    createMarketMaker({ client: sdkClient(base, t.operatorToken), body: { wallet_address: wallet.address, name: 'Positions MM' } }),
  );
  expect(reg.status).toBe(201);
  const client = new MarketMakerClient({ url: `ws://127.0.0.1:${t.svc.port}/v1/ws`, account: wallet, reconnect: false });
  mmClients.push(client);
  return (await client.start().waitForSession()).token;
}

export const windowOf = async (asset: string, duration: number, startMs: number) => {
  const r = await send(lookupMarket({ client: sdkClient(base), query: { asset, duration_secs: duration, window_start_ms: startMs } }));
  expect(r.status).toBe(200);
  return r.data!.market.market_id;
};
export const market = (id: number) => send(getMarket({ client: sdkClient(base), path: { market_id: id } }));
export const resolve = (id: number, outcome: 'YES' | 'NO' | 'VOID', token = t.operatorToken) =>
  send(resolveMarketWindow({ client: sdkClient(base, token), path: { market_id: id }, body: { outcome } }));
