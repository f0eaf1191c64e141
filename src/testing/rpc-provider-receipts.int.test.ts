// The provider stand-in's receipt hiding (src/testing/rpc-provider-receipts.ts), observed through viem's public
// client against a real anvil: `null` receipts for a while after mining, then the real ones. A fake clock steps
// time exactly, so nothing here waits or depends on the machine's speed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, type Hash, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS, startAnvil, type Anvil } from './anvil.js';
import { startProviderProxy, type ProviderProxy } from './rpc-provider.js';

let anvil: Anvil;
let proxy: ProviderProxy;
let client: PublicClient;
let clock = 1_000_000;
const account = privateKeyToAccount(ANVIL_KEYS[0]);

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startProviderProxy({ upstream: anvil.url, now: () => clock });
  client = createPublicClient({ transport: http(proxy.url, { retryCount: 0 }) }) as PublicClient;
});
afterAll(async () => {
  await proxy?.stop();
  await anvil?.stop();
});

/** A plain ETH transfer sent straight to the node (not through the proxy), mined at once (automine). */
async function minedTx(): Promise<Hash> {
  const chain = {
    id: anvil.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.url] } },
  };
  const wallet = createWalletClient({ account, chain, transport: http(anvil.url) });
  const hash = await wallet.sendTransaction({ to: privateKeyToAccount(ANVIL_KEYS[4]).address, value: 1n });
  const direct = createPublicClient({ transport: http(anvil.url) });
  await direct.waitForTransactionReceipt({ hash });
  return hash;
}

const receiptOrNull = (hash: Hash) =>
  client.getTransactionReceipt({ hash }).catch((e: Error) => (e.name === 'TransactionReceiptNotFoundError' ? null : Promise.reject(e)));

describe('hideReceiptsFor', () => {
  it('answers null until the given time after the transaction was first seen mined, then the real receipt', async () => {
    proxy.hideReceiptsFor(60_000);
    const hash = await minedTx();
    expect(await receiptOrNull(hash)).toBeNull();
    // The transaction itself keeps answering, mined (the default `transactions: 'pass'`).
    expect((await client.getTransaction({ hash })).blockNumber).toBeGreaterThan(0n);
    clock += 59_999;
    expect(await receiptOrNull(hash)).toBeNull();
    clock += 1;
    const receipt = await receiptOrNull(hash);
    expect(receipt?.transactionHash).toBe(hash);
    expect(receipt?.status).toBe('success');
    proxy.showReceipts();
  });

  it('starts the clock when the proxy first sees the block as head, not when the receipt is first asked for', async () => {
    proxy.hideReceiptsFor(60_000);
    const hash = await minedTx();
    const seenAt = clock;
    await client.getBlockNumber({ cacheTime: 0 });
    clock += 30_000;
    expect(await receiptOrNull(hash)).toBeNull();
    expect(proxy.seenMinedAt(hash)).toBe(seenAt);
    clock += 30_000;
    expect((await receiptOrNull(hash))?.transactionHash).toBe(hash);
    proxy.showReceipts();
  });

  it('hides only the given hashes, answers the block receipts null, and can answer the transaction as pending', async () => {
    const [hidden, shown] = [await minedTx(), await minedTx()];
    proxy.hideReceipts({ forMs: 60_000, hashes: [hidden.toUpperCase().replace('0X', '0x')], transactions: 'pending' });
    expect(await receiptOrNull(hidden)).toBeNull();
    expect((await receiptOrNull(shown))?.transactionHash).toBe(shown);
    const tx = await client.getTransaction({ hash: hidden });
    expect([tx.blockNumber, tx.blockHash, tx.transactionIndex]).toEqual([null, null, null]);
    const block = (await client.getTransaction({ hash: shown })).blockNumber!;
    const hiddenBlock = (await createPublicClient({ transport: http(anvil.url) }).getTransaction({ hash: hidden })).blockNumber!;
    expect(
      await client.request({ method: 'eth_getBlockReceipts' as never, params: [`0x${hiddenBlock.toString(16)}`] as never }),
    ).toBeNull();
    expect(await client.request({ method: 'eth_getBlockReceipts' as never, params: [`0x${block.toString(16)}`] as never })).toHaveLength(1);
    proxy.showReceipts();
    expect((await receiptOrNull(hidden))?.transactionHash).toBe(hidden);
  });

  it('hides receipts inside JSON-RPC batches too, and counts every call of a batch', async () => {
    proxy.resetCounts();
    proxy.hideReceiptsFor(60_000);
    const hash = await minedTx();
    const batched = createPublicClient({ transport: http(proxy.url, { batch: true, retryCount: 0 }) });
    const [receipt, head] = await Promise.all([
      batched.getTransactionReceipt({ hash }).catch((e: Error) => e.name),
      batched.getBlockNumber({ cacheTime: 0 }),
    ]);
    expect(receipt).toBe('TransactionReceiptNotFoundError');
    expect(head).toBeGreaterThan(0n);
    expect(proxy.stats()).toMatchObject({ requests: 1, batches: 1, calls: 2 });
    expect(proxy.counts()).toEqual({ eth_getTransactionReceipt: 1, eth_blockNumber: 1 });
    proxy.reset();
    expect((await receiptOrNull(hash))?.transactionHash).toBe(hash);
  });
});

describe('refuse and resume', () => {
  it('makes the endpoint unreachable, then reachable again on the same URL', async () => {
    await proxy.refuse();
    await expect(client.getBlockNumber({ cacheTime: 0 })).rejects.toThrow(/HTTP request failed|fetch failed/);
    await proxy.resume();
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(0n);
  });
});
