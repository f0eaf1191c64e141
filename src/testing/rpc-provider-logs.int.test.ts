// The provider stand-in's eth_getLogs caps (src/testing/rpc-provider-logs.ts) against a real anvil, observed
// through viem's public client: each provider's error, code and suggested range, with caps lowered so a handful
// of Transfer logs exceed them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, parseAbiItem, type PublicClient } from 'viem';
import { startTestChain, type TestChain } from './chain.js';
import { startProviderProxy, type ProviderProxy } from './rpc-provider.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
let t: TestChain;
let proxy: ProviderProxy;
let client: PublicClient;
/** The block of each of 8 mints, one a block. */
let blocks: bigint[];
/** The HTTP status of the client's last response (viem turns a 413 with a JSON-RPC error into that RPC error). */
let lastStatus = 0;

beforeAll(async () => {
  t = await startTestChain();
  proxy = await startProviderProxy({ upstream: t.anvil.url });
  client = createPublicClient({
    transport: http(proxy.url, { retryCount: 0, onFetchResponse: (r) => void (lastStatus = r.status) }),
  }) as PublicClient;
  const to = (await t.newWallet()).address;
  blocks = [];
  for (let i = 0; i < 8; i++) {
    await t.fund(to, { usdcMicros: 1n });
    blocks.push(await t.client.getBlockNumber({ cacheTime: 0 }));
  }
});
afterEach(() => proxy.reset());
afterAll(async () => {
  await proxy?.stop();
  await t?.stop();
});

const logs = (fromBlock: bigint, toBlock: bigint) => client.getLogs({ address: t.token, event: TRANSFER, fromBlock, toBlock });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: { code?: number; status?: number; details?: string }) => ({ code: e.code, status: e.status, details: e.details }),
  );
const hex = (n: bigint) => `0x${n.toString(16)}`;

describe('capLogs', () => {
  it('QuickNode: more than 5 blocks is an HTTP 413 with -32614', async () => {
    proxy.capLogs('quicknode');
    const first = blocks[0]!;
    expect(await logs(first, first + 4n)).toHaveLength(5);
    expect(lastStatus).toBe(200);
    expect(await failure(logs(first, first + 5n))).toMatchObject({ code: -32614, details: 'eth_getLogs is limited to a 5 range' });
    expect(lastStatus).toBe(413);
  });

  it("Alchemy's plan range cap: -32600 with the range that would work", async () => {
    proxy.capLogs({ provider: 'alchemy-range', maxBlocks: 3 });
    const first = blocks[0]!;
    expect(await logs(first, first + 2n)).toHaveLength(3);
    expect(await failure(logs(first, first + 3n))).toMatchObject({
      code: -32600,
      details: `You can make eth_getLogs requests with up to a 3 block range. Based on your parameters, this block range should work: [${hex(first)}, ${hex(first + 2n)}]`,
    });
  });

  it('Alchemy: too many logs over too wide a range is -32602 with the range that holds the cap; a narrow range or few logs pass', async () => {
    proxy.capLogs({ provider: 'alchemy', maxBlocks: 3, maxLogs: 2 });
    const [first, last] = [blocks[0]!, blocks[7]!];
    const err = await failure(logs(first, last));
    expect(err).toMatchObject({ code: -32602 });
    expect((err as { details: string }).details).toBe(
      `Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [${hex(first)}, ${hex(blocks[2]! - 1n)}]`,
    );
    expect(await logs(first, first + 2n)).toHaveLength(3); // within the block range: any number of logs
    expect(await logs(blocks[6]!, last + 5n)).toHaveLength(2); // any range: at most maxLogs logs
  });

  it('Infura: more than N results is -32005 with data {from, limit, to}; a range cap, when set, is -32602', async () => {
    proxy.capLogs({ provider: 'infura', maxLogs: 4 });
    const [first, last] = [blocks[0]!, blocks[7]!];
    const raw = (await (
      await fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'eth_getLogs',
          params: [{ address: t.token, fromBlock: hex(first), toBlock: hex(last) }],
        }),
      })
    ).json()) as unknown;
    const upper = (n: bigint) => `0x${n.toString(16).toUpperCase()}`;
    expect(raw).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32005,
        data: { from: upper(first), limit: 4, to: upper(blocks[4]! - 1n) },
        message: `query returned more than 4 results. Try with this block range [${upper(first)}, ${upper(blocks[4]! - 1n)}].`,
      },
    });
    expect(await failure(logs(first, last))).toMatchObject({ code: -32005 });
    expect(await logs(first, blocks[3]!)).toHaveLength(4);
    proxy.capLogs({ provider: 'infura', maxBlocks: 4 });
    expect(await failure(logs(first, first + 4n))).toMatchObject({ code: -32602, details: 'range 5 exceeds limit of 4' });
  });

  it('counts `latest` as the head, and lifts every cap with uncapLogs()', async () => {
    proxy.capLogs('quicknode');
    const toLatest = client.getLogs({ address: t.token, event: TRANSFER, fromBlock: blocks[0]!, toBlock: 'latest' });
    expect(await failure(toLatest)).toMatchObject({ code: -32614 });
    expect(await failure(client.getLogs({ address: t.token, event: TRANSFER, fromBlock: blocks[7]! - 4n }))).toBe('no error'); // to the head: 5 blocks
    proxy.uncapLogs();
    expect(await logs(blocks[0]!, blocks[7]!)).toHaveLength(8);
  });
});
