// The SDK's market-maker client, and examples/market-maker-client.ts built on it, stop for good, saying why,
// when retrying cannot help: the operator removed the market maker (close 4004), or the wallet is not
// registered (unknown_market_maker); the example script exits 3 with the reason on stderr.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { MarketMakerClient, type MarketMakerGoneError } from '@contest-rfq/sdk';
import { createMarketMaker, deleteMarketMaker } from '../../generated/openapi/sdk.gen.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { startTestService, type TestService } from '../testing/test-service.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let t: TestService;
const wsUrl = () => `${t.svc.baseUrl.replace(/^http/, 'ws')}/v1/ws`;

beforeAll(async () => {
  t = await startTestService('mmremoval');
});
afterAll(async () => {
  await t?.stop();
});

async function register(address: string) {
  const res = await sent(createMarketMaker({ client: operator(), body: { wallet_address: address, name: 'Removal test' } }));
  expect(res.status).toBe(201);
}
const operator = () => sdkClient(t.svc.baseUrl, t.operatorToken);
const remove = async (address: string) =>
  expect((await sent(deleteMarketMaker({ client: operator(), path: { wallet_address: address } }))).status).toBe(204);

describe('example market-maker client', () => {
  it('removal (close 4004): gives up with the reason, no reconnect', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await register(account.address);
    const client = new MarketMakerClient({ url: wsUrl(), account, minBackoffMs: 20 });
    const reconnects: unknown[] = [];
    client.on('reconnecting', (r) => reconnects.push(r));
    await client.start().waitForSession();
    const gaveUp = new Promise<MarketMakerGoneError>((resolve) => client.once('gave_up', resolve));
    await remove(account.address);
    expect((await gaveUp).code).toBe('removed');
    await new Promise((r) => setTimeout(r, 300));
    expect(reconnects).toEqual([]);
    await client.stop();
  });

  it('a wallet that is not registered: gives up after the first unknown_market_maker', async () => {
    const client = new MarketMakerClient({ url: wsUrl(), account: privateKeyToAccount(generatePrivateKey()), minBackoffMs: 20 });
    const failures: unknown[] = [];
    client.on('auth_failed', (e) => failures.push(e));
    const gaveUp = new Promise<MarketMakerGoneError>((resolve) => client.once('gave_up', resolve));
    client.start();
    expect((await gaveUp).code).toBe('unknown_market_maker');
    await new Promise((r) => setTimeout(r, 300));
    expect(failures).toEqual(['unknown_market_maker']);
    await client.stop();
  });

  it('the script exits 3 with the message on stderr when its wallet is removed', async () => {
    const key = generatePrivateKey();
    const { address } = privateKeyToAccount(key);
    await register(address);
    const proc = spawn(process.execPath, ['--import', 'tsx', 'examples/market-maker-client.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', MM_PRIVATE_KEY: key, WS_URL: wsUrl() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    createInterface({ input: proc.stderr! }).on('line', (l) => stderr.push(l));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
    await new Promise<void>((resolve) =>
      createInterface({ input: proc.stdout! }).on('line', (l) => l.startsWith('session token') && resolve()),
    );
    await remove(address);
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running after 10 s'), 10_000))]);
    if (code !== 3) proc.kill('SIGKILL');
    expect(code).toBe(3);
    expect(stderr.join('\n')).toMatch(/^market-maker client stopped: .*(removed|4004)/im);
  });
});
