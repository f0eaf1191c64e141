// The chainlink price source on a real local chain: anvil (src/testing/anvil.ts) with the mock aggregator of
// contracts/MockAggregator.sol, rounds written at chosen block timestamps (evm_setNextBlockTimestamp): the
// round in force at a window's start and end is the one used, a time before the first round is no reading,
// answers are scaled by decimals(), 10,000 rounds are searched in under 20 calls (counted at the transport),
// and a time in an earlier phase is found there.
import { readFileSync } from 'node:fs';
import { createWalletClient, http, publicActions, type Abi, type Hex, type Transport } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../../testing/anvil.js';
import { createChainlinkFeed } from './chainlink.js';
import { createQuorumFeed } from '../../domain/prices/read.js';

const build = JSON.parse(readFileSync(new URL('../../../contracts/build/MockAggregator.json', import.meta.url), 'utf8')) as {
  abi: Abi;
  bytecode: Hex;
};
let chain: Anvil;
let wallet: ReturnType<typeof walletFor>;
const walletFor = (url: string) =>
  createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS[0]), chain: anvilChain, transport: http(url) }).extend(publicActions);

beforeAll(async () => {
  chain = await startAnvil({ args: ['--gas-limit', '1000000000'] });
  wallet = walletFor(chain.url);
});
afterAll(() => chain?.stop());

async function deploy(decimals: number, phase = 1): Promise<Hex> {
  const hash = await wallet.deployContract({ abi: build.abi, bytecode: build.bytecode, args: [decimals, 'BTC / USD', phase] });
  return (await wallet.waitForTransactionReceipt({ hash })).contractAddress!;
}
async function write(address: Hex, functionName: string, args: unknown[], atS?: number): Promise<void> {
  if (atS !== undefined) await chain.rpc('evm_setNextBlockTimestamp', [atS]);
  const hash = await wallet.writeContract({ address, abi: build.abi, functionName, args });
  expect((await wallet.waitForTransactionReceipt({ hash })).status).toBe('success');
}

/** An http transport that counts the JSON-RPC calls made through it. */
function counting(url: string): { transport: Transport; calls: () => number } {
  let n = 0;
  const inner = http(url);
  const transport: Transport = (args) => {
    const t = inner(args);
    return { ...t, request: (req: Parameters<typeof t.request>[0]) => (n++, t.request(req)) } as ReturnType<Transport>;
  };
  return { transport, calls: () => n };
}

const feedOf = (address: Hex, transport?: Transport) =>
  createChainlinkFeed({ rpcUrl: chain.url, feeds: { BTC: address }, timeoutMs: 2000, retries: 1, transport });

describe('chainlink on anvil', () => {
  it("the round in force at a window's start and end; before the first round, no reading; answers scaled by decimals()", async () => {
    const agg = await deploy(8);
    const base = Math.floor(Date.now() / 1000) + 1000;
    await write(agg, 'submit', [9_700_000_000_000n], base); // 97000.00000000
    await write(agg, 'submit', [9_712_345_678_901n], base + 10); // 97123.45678901
    await write(agg, 'submit', [9_650_000_000_000n], base + 25);
    const feed = feedOf(agg);
    const phase1 = 1n << 64n;
    expect(await feed.priceAt('BTC', (base - 1) * 1000)).toBeNull();
    expect(await feed.priceAt('BTC', base * 1000)).toEqual({
      priceMicros: 97_000_000_000n,
      observedAtMs: base * 1000,
      sourceRef: `round:${phase1 | 1n}`,
    });
    expect(await feed.priceAt('BTC', (base + 10) * 1000)).toMatchObject({
      priceMicros: 97_123_456_789n,
      sourceRef: `round:${phase1 | 2n}`,
    });
    expect(await feed.priceAt('BTC', (base + 24) * 1000 + 999)).toMatchObject({ sourceRef: `round:${phase1 | 2n}` });
    expect(await feed.priceAt('BTC', (base + 3600) * 1000)).toMatchObject({
      priceMicros: 96_500_000_000n,
      sourceRef: `round:${phase1 | 3n}`,
    });
    await expect(feed.priceAt('ETH', base * 1000)).rejects.toMatchObject({ reason: 'not_listed' }); // no feed for the asset
    // CHAIN_RPC_URL may be a ws:// endpoint: the same round through a WebSocket transport.
    const ws = createChainlinkFeed({ rpcUrl: chain.url.replace(/^http/, 'ws'), feeds: { BTC: agg }, timeoutMs: 2000, retries: 1 });
    expect(await ws.priceAt('BTC', (base + 10) * 1000)).toMatchObject({ priceMicros: 97_123_456_789n, sourceRef: `round:${phase1 | 2n}` });

    // A window from base+5 to base+30: open = round 1, close = round 3, a 5 s old open reading votes.
    const { readings } = await createQuorumFeed([feed], 1, 10_000).read('BTC', (base + 5) * 1000, (base + 30) * 1000);
    expect(readings[0]).toMatchObject({ open: { sourceRef: `round:${phase1 | 1n}` }, close: { sourceRef: `round:${phase1 | 3n}` } });

    const six = await deploy(6);
    await write(six, 'submit', [3_001_625_540n], base + 30);
    expect((await feedOf(six).priceAt('BTC', (base + 30) * 1000))!.priceMicros).toBe(3_001_625_540n);
  });

  it('10,000 rounds: binary search in under 20 calls, the right round every time; an earlier phase is searched too', async () => {
    const agg = await deploy(8, 3);
    const t0 = Math.floor(Date.now() / 1000) + 5000;
    const N = 10_000;
    for (let from = 0; from < N; from += 2500) {
      const idx = Array.from({ length: Math.min(2500, N - from) }, (_, i) => from + i);
      await write(agg, 'submitMany', [idx.map((i) => BigInt(1_000_000_000 + i)), idx.map((i) => BigInt(t0 + i * 2))]);
    }
    const phase3 = 3n << 64n;
    for (const [atS, round] of [
      [t0, 1],
      [t0 + 1, 1],
      [t0 + 2 * 4321, 4322],
      [t0 + 2 * 4321 + 1, 4322],
      [t0 + 2 * (N - 2) + 1, N - 1],
    ] as const) {
      const c = counting(chain.url);
      const r = await feedOf(agg, c.transport).priceAt('BTC', atS * 1000);
      expect(r).toEqual({
        priceMicros: (BigInt(1_000_000_000 + round - 1) * 1_000_000n) / 100_000_000n,
        observedAtMs: (t0 + 2 * (round - 1)) * 1000,
        sourceRef: `round:${phase3 | BigInt(round)}`,
      });
      expect(c.calls(), `calls for round ${round}`).toBeLessThan(20);
    }
    const before = counting(chain.url);
    expect(await feedOf(agg, before.transport).priceAt('BTC', (t0 - 1) * 1000)).toBeNull();

    // A new phase: a time of phase 3 is still found, in phase 3.
    await write(agg, 'newPhase', []);
    await write(agg, 'submit', [2_000_000_000n], t0 + 2 * N + 100);
    const back = counting(chain.url);
    expect(await feedOf(agg, back.transport).priceAt('BTC', (t0 + 2 * 777) * 1000)).toMatchObject({ sourceRef: `round:${phase3 | 778n}` });
    expect(await feedOf(agg).priceAt('BTC', (t0 + 2 * N + 100) * 1000)).toMatchObject({
      priceMicros: 20_000_000n,
      sourceRef: `round:${(4n << 64n) | 1n}`,
    });
  });

  it('an unreachable chain fails the read (no reading), never a wrong round', async () => {
    const feed = createChainlinkFeed({
      rpcUrl: 'http://127.0.0.1:9',
      feeds: { BTC: '0x0000000000000000000000000000000000000001' },
      timeoutMs: 300,
      retries: 0,
    });
    await expect(feed.priceAt('BTC', Date.now())).rejects.toThrow();
  });
});
