// The provider stand-in's lagging backend (src/testing/rpc-provider-lag.ts) against a real anvil, observed through
// viem's public client: eth_blockNumber answers the true head while every read comes from a node K blocks behind
// (empty logs, null receipts and blocks, older state, "header not found"), until the chain moves K blocks on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, parseAbiItem, type Hash, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { startTestChain, type TestChain } from './chain.js';
import { startProviderProxy, type ProviderProxy } from './rpc-provider.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
let t: TestChain;
let proxy: ProviderProxy;
let client: PublicClient;
let alice: PrivateKeyAccount;

beforeAll(async () => {
  t = await startTestChain();
  proxy = await startProviderProxy({ upstream: t.anvil.url });
  client = createPublicClient({ transport: http(proxy.url, { retryCount: 0 }) }) as PublicClient;
  alice = await t.newWallet(5n);
});
afterAll(async () => {
  await proxy?.stop();
  await t?.stop();
});

const orNull = <T>(p: Promise<T>) => p.catch((e: Error) => (/NotFoundError$/.test(e.name) ? null : Promise.reject(e)));
const balance = (blockTag?: 'latest' | 'pending') =>
  client.readContract({ address: t.token, abi: erc20Abi, functionName: 'balanceOf', args: [alice.address], blockTag });

describe('lag', () => {
  it('answers the newest K blocks as a node that has not imported them, then catches up as the chain moves on', async () => {
    await t.anvil.mine(2); // alice's mint is older than the lag below
    const before = await client.getBlockNumber({ cacheTime: 0 });
    const nonceBefore = await client.getTransactionCount({ address: alice.address });
    const hash: Hash = await t.transfer(alice, t.faucet.address, 2n); // block before + 1
    const mined = before + 1n;
    proxy.lag(2);

    // eth_blockNumber: the true head.
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(mined);
    // Logs: [] for the part of the range inside the newest 2 blocks.
    expect(await client.getLogs({ address: t.token, event: TRANSFER, fromBlock: mined, toBlock: mined })).toEqual([]);
    expect(
      (await client.getLogs({ address: t.token, event: TRANSFER, fromBlock: 0n, toBlock: mined })).map((l) => l.blockNumber < mined),
    ).not.toContain(false);
    // The receipt and the block are unknown; the transaction is known, but pending.
    expect(await orNull(client.getTransactionReceipt({ hash }))).toBeNull();
    expect(await orNull(client.getBlock({ blockNumber: mined }))).toBeNull();
    expect((await client.getTransaction({ hash })).blockNumber).toBeNull();
    expect((await client.getBlock()).number).toBe(mined - 2n); // `latest` is the lagging node's
    // State: `latest` is the older state; a number above the node's head is "header not found"; `pending` passes.
    expect(await balance('latest')).toBe(5n);
    expect(await balance('pending')).toBe(3n);
    expect(await client.getTransactionCount({ address: alice.address, blockTag: 'latest' })).toBe(nonceBefore);
    await expect(client.getTransactionCount({ address: alice.address, blockNumber: mined })).rejects.toThrow(/header not found/);

    // Two more blocks: the lagging node now has the transfer's block.
    await t.anvil.mine(2);
    expect((await client.getTransactionReceipt({ hash })).status).toBe('success');
    expect(await client.getLogs({ address: t.token, event: TRANSFER, fromBlock: mined, toBlock: mined })).toHaveLength(1);
    expect(await balance('latest')).toBe(3n);
    expect(await client.getTransactionCount({ address: alice.address, blockNumber: mined })).toBe(nonceBefore + 1);
  });

  it('passes everything through again with lag(0)', async () => {
    proxy.lag(3);
    const head = await client.getBlockNumber({ cacheTime: 0 });
    expect(await orNull(client.getBlock({ blockNumber: head }))).toBeNull();
    proxy.lag(0);
    expect((await client.getBlock({ blockNumber: head })).number).toBe(head);
    expect((await client.getBlock()).number).toBe(head);
  });
});
