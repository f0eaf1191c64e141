// The chainlink source on an L2 (anvil, src/testing/anvil.ts): with CHAINLINK_SEQUENCER_FEED set to the mock
// uptime feed of contracts/MockSequencerUptimeFeed.sol, a reading at a time the sequencer was down abstains
// (`sequencer_down`), one within the grace period after it came back abstains (`sequencer_grace_period`), and
// one after it is read. The probe: an address holding no contract lists nothing, a sequencer feed address
// holding none fails the probe; lookup by round id; an unreachable RPC fails with a code and no URL in the text.
import { readFileSync } from 'node:fs';
import { createWalletClient, http, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../../testing/anvil.js';
import { createChainlinkFeed } from './chainlink.js';
import type { Abstain } from './reasons.js';

const artifact = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../contracts/build/${name}.json`, import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
const AGG = artifact('MockAggregator');
const SEQ = artifact('MockSequencerUptimeFeed');
let chain: Anvil;
let wallet: ReturnType<typeof walletFor>;
const walletFor = (url: string) =>
  createWalletClient({ account: privateKeyToAccount(ANVIL_KEYS[0]), chain: anvilChain, transport: http(url) }).extend(publicActions);

beforeAll(async () => {
  chain = await startAnvil();
  wallet = walletFor(chain.url);
});
afterAll(() => chain?.stop());

async function deploy(c: { abi: Abi; bytecode: Hex }, args: unknown[]): Promise<Hex> {
  const hash = await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args });
  return (await wallet.waitForTransactionReceipt({ hash })).contractAddress!;
}
async function write(c: { abi: Abi }, address: Hex, functionName: string, args: unknown[]): Promise<void> {
  const hash = await wallet.writeContract({ address, abi: c.abi, functionName, args });
  expect((await wallet.waitForTransactionReceipt({ hash })).status).toBe('success');
}
const reasonOf = (p: Promise<unknown>) =>
  p.then(
    () => 'observed',
    (e: Abstain) => e.reason,
  );

describe('chainlink behind an L2 sequencer uptime feed', () => {
  it('abstains while the sequencer was down and within the grace period after it came back; reads outside them', async () => {
    const T = 1_900_000_000; // seconds; rounds written with explicit times
    const agg = await deploy(AGG, [8, 'BTC / USD', 1]);
    await write(AGG, agg, 'submitMany', [
      [9_700_000_000_000n, 9_710_000_000_000n, 9_720_000_000_000n],
      [T, T + 4000, T + 9000],
    ]);
    const seq = await deploy(SEQ, []);
    await write(SEQ, seq, 'setStatus', [0n, BigInt(T - 86_400)]); // up since the day before
    await write(SEQ, seq, 'setStatus', [1n, BigInt(T + 3000)]); // down at T+3000
    await write(SEQ, seq, 'setStatus', [0n, BigInt(T + 5000)]); // back at T+5000
    const feed = createChainlinkFeed({
      rpcUrl: chain.url,
      feeds: { BTC: agg },
      timeoutMs: 2000,
      retries: 1,
      sequencerFeed: seq,
      sequencerGraceMs: 3_600_000,
    });
    expect(await feed.priceAt('BTC', (T + 100) * 1000)).toMatchObject({ priceMicros: 97_000_000_000n, observedAtMs: T * 1000 });
    expect(await reasonOf(feed.priceAt('BTC', (T + 3000) * 1000))).toBe('sequencer_down');
    expect(await reasonOf(feed.priceAt('BTC', (T + 4999) * 1000))).toBe('sequencer_down');
    expect(await reasonOf(feed.priceAt('BTC', (T + 5000) * 1000))).toBe('sequencer_grace_period');
    expect(await reasonOf(feed.priceAt('BTC', (T + 8599) * 1000))).toBe('sequencer_grace_period');
    expect(await feed.priceAt('BTC', (T + 8600) * 1000)).toMatchObject({ priceMicros: 97_100_000_000n }); // grace over: round 2 in force
    // Down again, and still down now: every later time abstains.
    await write(SEQ, seq, 'setStatus', [1n, BigInt(T + 20_000)]);
    expect(await reasonOf(feed.priceAt('BTC', (T + 30_000) * 1000))).toBe('sequencer_down');
    // With a shorter grace, the same time reads; without the sequencer feed (an L1) there is no check at all.
    const shortGrace = createChainlinkFeed({
      rpcUrl: chain.url,
      feeds: { BTC: agg },
      timeoutMs: 2000,
      retries: 1,
      sequencerFeed: seq,
      sequencerGraceMs: 60_000,
    });
    expect(await shortGrace.priceAt('BTC', (T + 5100) * 1000)).toMatchObject({ priceMicros: 97_100_000_000n });
    const l1 = createChainlinkFeed({ rpcUrl: chain.url, feeds: { BTC: agg }, timeoutMs: 2000, retries: 1 });
    expect(await l1.priceAt('BTC', (T + 4000) * 1000)).toMatchObject({ priceMicros: 97_100_000_000n });
    expect(await l1.lookup!('BTC', `round:${(1n << 64n) | 3n}`)).toEqual({
      priceMicros: 97_200_000_000n,
      observedAtMs: (T + 9000) * 1000,
      sourceRef: `round:${(1n << 64n) | 3n}`,
    });
    expect(await l1.lookup!('BTC', `round:${(1n << 64n) | 9n}`)).toBeNull();
  });

  it('the probe: an address without a contract lists nothing; a sequencer feed without one fails the probe', async () => {
    const agg = await deploy(AGG, [8, 'ETH / USD', 1]);
    await write(AGG, agg, 'submit', [300_000_000_000n]);
    const nowhere = '0x000000000000000000000000000000000000dEaD';
    const feed = createChainlinkFeed({ rpcUrl: chain.url, feeds: { ETH: agg, BTC: nowhere }, timeoutMs: 2000, retries: 1 });
    expect(await feed.probe!(['BTC', 'ETH', 'SOL'])).toEqual({ listed: ['ETH'], unlisted: ['BTC', 'SOL'] });
    const badSeq = createChainlinkFeed({ rpcUrl: chain.url, feeds: { ETH: agg }, timeoutMs: 2000, retries: 1, sequencerFeed: nowhere });
    await expect(badSeq.probe!(['ETH'])).rejects.toMatchObject({
      reason: 'source_error',
      message: 'CHAINLINK_SEQUENCER_FEED holds no contract on this chain',
    });
  });

  it('an unreachable RPC is `unreachable`, and its error names no URL, user or key', async () => {
    const feed = createChainlinkFeed({
      rpcUrl: 'http://user:s3cret@127.0.0.1:9/v2/KEY123?apikey=abc',
      feeds: { BTC: '0x0000000000000000000000000000000000000001' },
      timeoutMs: 300,
      retries: 0,
    });
    const err = (await feed.priceAt('BTC', Date.now()).catch((e: unknown) => e)) as Abstain;
    expect(err.reason).toBe('unreachable');
    for (const secret of ['s3cret', 'KEY123', 'apikey', 'user:']) expect(err.message).not.toContain(secret);
  });
});
