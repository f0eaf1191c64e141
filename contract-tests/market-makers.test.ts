// Market makers through the generated client: createMarketMaker, deleteMarketMaker (operator API) and
// a market-maker route (getMakerPnl) with a token from the WebSocket handshake (the example client). Every
// response is checked against the spec; the market-maker trading routes are in positions.test.ts.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createMarketMaker, deleteMarketMaker, getMakerPnl } from '../generated/openapi/sdk.gen.ts';
import { randomWallet } from '../src/testing/identity.js';
import { MarketMakerClient } from '@contest-rfq/sdk';
import { startContractService, type ContractService } from './harness.ts';

let svc: ContractService;
const clients: MarketMakerClient[] = [];

beforeAll(async () => {
  svc = await startContractService('mm', { env: { RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.stop()));
  if (svc) expect(await svc.stop()).toBe(0);
});

async function register(wallet = randomWallet()) {
  const op = svc.client({ token: svc.operatorToken });
  const { data } = await op.run(
    createMarketMaker({ client: op.client, body: { wallet_address: wallet.address.toLowerCase(), name: 'Contract MM' } }),
    { status: 201 },
  );
  return { wallet, data: data! };
}

async function mmToken(wallet: ReturnType<typeof randomWallet>): Promise<string> {
  const client = new MarketMakerClient({ url: `ws://127.0.0.1:${svc.process.port}/v1/ws`, account: wallet, reconnect: false });
  clients.push(client);
  return (await client.start().waitForSession()).token;
}

describe('createMarketMaker', () => {
  it('201: the wallet comes back in checksum form', async () => {
    const before = Date.now();
    const { wallet, data } = await register();
    expect(data).toEqual({ wallet_address: wallet.address, name: 'Contract MM', created_at_ms: expect.any(Number) });
    expect(data.created_at_ms).toBeGreaterThanOrEqual(before - 5000);
  });

  it('409 MARKET_MAKER_EXISTS: the same wallet in another letter case', async () => {
    const { wallet } = await register();
    const op = svc.client({ token: svc.operatorToken });
    await op.run(createMarketMaker({ client: op.client, body: { wallet_address: wallet.address, name: 'Again' } }), {
      status: 409,
      code: 'MARKET_MAKER_EXISTS',
    });
  });

  it('400 VALIDATION_FAILED: mixed case with a wrong checksum', async () => {
    const wallet = randomWallet();
    const flipped = `0x${[...wallet.address.slice(2)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')}`;
    const op = svc.client({ token: svc.operatorToken });
    await op.run(createMarketMaker({ client: op.client, body: { wallet_address: flipped, name: 'Bad' } }), {
      status: 400,
      code: 'VALIDATION_FAILED',
    });
  });

  it('403 FORBIDDEN: a market-maker token on an operator route (createMarketMaker and deleteMarketMaker)', async () => {
    const { wallet } = await register();
    const mm = svc.client({ token: await mmToken(wallet) });
    await mm.run(createMarketMaker({ client: mm.client, body: { wallet_address: randomWallet().address, name: 'X' } }), {
      status: 403,
      code: 'FORBIDDEN',
    });
    await mm.run(deleteMarketMaker({ client: mm.client, path: { wallet_address: wallet.address } }), { status: 403, code: 'FORBIDDEN' });
  });
});

describe('deleteMarketMaker', () => {
  it('204, then 404 NOT_FOUND; the token of the removed maker gets 401 INVALID_SESSION', async () => {
    const { wallet } = await register();
    const token = await mmToken(wallet);
    const op = svc.client({ token: svc.operatorToken });
    await op.run(deleteMarketMaker({ client: op.client, path: { wallet_address: wallet.address.toLowerCase() } }), { status: 204 });
    await op.run(deleteMarketMaker({ client: op.client, path: { wallet_address: wallet.address } }), { status: 404, code: 'NOT_FOUND' });
    const mm = svc.client({ token });
    await mm.run(getMakerPnl({ client: mm.client }), { status: 401, code: 'INVALID_SESSION' });
  });
});
