// The taker helpers against a real service process: fetchTypedData reads GET /v1/rfq/typed-data of the
// running deployment, and signOrder with it gives the worked example's signature (anvil key #0).
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, fetchTypedData, signOrder } from '@contest-rfq/sdk';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../../src/testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../../src/testing/service-process.js';

let db: TestDatabase;
let svc: ServiceProcess;
beforeAll(async () => {
  db = await createTestDatabase('sdktaker');
  svc = await startServiceProcess({
    env: { NODE_ENV: 'test', DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: uniquePrefix('sdktaker') },
    args: ['--role=api'],
  });
});
afterAll(async () => {
  await svc?.stop();
  await db?.drop();
});

it('fetchTypedData + signOrder on the running service give the worked example signature', async () => {
  const typedData = await fetchTypedData(createClient({ baseUrl: svc.baseUrl }));
  expect(typedData.domain).toEqual({
    name: 'contest-rfq-service',
    version: '1',
    chainId: 8453,
    salt: '0x8d5d28a7520b2fce0220b78bd608db6c5be909e11e680da4203c9aadfd8911e4',
  });
  expect(typedData.primary_types).toEqual({ order: 'RfqOrder', quote: 'Quote' });
  const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  const signature = await signOrder(account, typedData, {
    taker: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    legs: [
      { market_id: 1042, direction: 'up' },
      { market_id: 1043, direction: 'down' },
    ],
    stake_micros: 10000000,
    min_odds_bps: 25000,
    order_type: 'FOK',
    nonce: 1,
    deadline_ms: 1767225630000,
  });
  expect(signature).toBe(
    '0x2b452a3c005a6d790d063434ccc435b66c5af72a1116a63a52e02ddfa139133e271cd4336f6cd31c8e4166d82ad4694dd33dd4b28741cbdb807f956b8c8427c41b',
  );
});
