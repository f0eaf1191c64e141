// The provider stand-in as its own process (`npm run chain:provider`, scripts/rpc-provider.ts) switched through its
// HTTP control API (src/testing/rpc-provider-control.ts), as a drill against a running deployment does.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, type PublicClient } from 'viem';
import { startAnvil, type Anvil } from './anvil.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let anvil: Anvil;
let child: ChildProcess;
let urls: { provider: string; control: string };
let client: PublicClient;

beforeAll(async () => {
  anvil = await startAnvil();
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/rpc-provider.ts', '--upstream', anvil.url], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  urls = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0]!;
      if (out.includes('\n')) resolve(JSON.parse(line) as typeof urls);
    });
    child.once('exit', (code) => reject(new Error(`rpc-provider exited with ${code}: ${out}`)));
  });
  client = createPublicClient({ transport: http(urls.provider, { retryCount: 0 }) }) as PublicClient;
});
afterAll(async () => {
  child?.kill('SIGTERM');
  await anvil?.stop();
});

const control = async (path: string, body?: unknown) => {
  const res = await fetch(`${urls.control}/${path}`, {
    method: body === 'GET' ? 'GET' : 'POST',
    body: body === undefined || body === 'GET' ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('npm run chain:provider', () => {
  it('forwards to the node and counts what it received', async () => {
    expect(await client.getChainId()).toBe(31337);
    const { body } = await control('counts', 'GET');
    expect(body.counts).toEqual({ eth_chainId: 1 });
  });

  it('switches behaviours over HTTP: a lagging backend, a 429, a stall released by id, then reset', async () => {
    await anvil.mine(3);
    expect((await control('lag', 2)).status).toBe(200);
    const head = await client.getBlockNumber({ cacheTime: 0 });
    expect((await client.getBlock()).number).toBe(head - 2n);
    expect((await control('rateLimit', { requests: 1, provider: 'infura' })).status).toBe(200);
    await expect(client.getChainId()).rejects.toThrow(/project ID request rate exceeded/);
    const { body } = await control('stall', { methods: ['eth_chainId'] });
    const chainIdCalls = async () => ((await control('counts', 'GET')).body.counts as Record<string, number>).eth_chainId;
    const before = await chainIdCalls();
    const stalled = client.getChainId();
    for (let i = 0; i < 500 && (await chainIdCalls()) === before; i++) await new Promise((r) => setTimeout(r, 10)); // until it has arrived
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(head);
    expect(await control('release', { id: body.id })).toEqual({ status: 200, body: { ok: true, held: 1 } });
    expect(await stalled).toBe(31337);
    await control('reset');
    expect((await client.getBlock()).number).toBe(head);
  });

  it('refuses an unknown behaviour and bad arguments with a 4xx', async () => {
    expect((await control('explode')).status).toBe(404);
    expect((await control('lag', -1)).body.error).toMatch(/whole number/);
  });
});
