// What the chain says about a settlement nonce whose transactions have no receipt (docs/settlement.md, "What the
// service concludes from the node"). A `null` receipt is "not known yet", never "not mined": load-balanced
// providers answer it for blocks their answering node has not indexed. So when the wallet's nonce is used on
// chain and none of the operation's hashes has a receipt, the service looks again, by hash and by the block
// that used the nonce, and concludes only what a block shows:
//   open      the nonce is not used at the latest block: a transaction of ours can still be mined (and be replaced)
//   ours      a block holds one of the operation's own hashes at the nonce: mined, its receipt not served yet
//   foreign   a block holds ANOTHER transaction of the wallet at the nonce: none of ours can be mined, and
//             whether that one paid the operation is an operator's call
//   consumed  the nonce is used but neither the hash nor the block could be found (yet)
// Nothing here ever fails or refunds an operation; the caller waits, and past a bounded time asks an operator.
import { getAddress, type Address, type Hex } from 'viem';
import type { Chain } from '../../../adapters/chain/chain.js';

export type NonceEvidence =
  | { kind: 'open' }
  | { kind: 'ours'; hash: string; blockNumber: bigint }
  | { kind: 'foreign'; hash: string; blockNumber: bigint }
  | { kind: 'consumed' };

/** Blocks below the head searched for the one that used the nonce (Base: about 5.5 hours of 2 s blocks). */
export const NONCE_SEARCH_BLOCKS = 10_000n;

/** Whether the sender's nonce is used at the node's latest block. */
export async function nonceUsed(chain: Chain, sender: Address, nonce: bigint): Promise<boolean> {
  return BigInt(await chain.client.getTransactionCount({ address: sender, blockTag: 'latest' })) > nonce;
}

/** The transaction by hash, or null when the node does not know it (yet). */
async function transactionOf(chain: Chain, hash: string) {
  try {
    return await chain.client.getTransaction({ hash: hash as Hex });
  } catch (err) {
    if ((err as { name?: string }).name === 'TransactionNotFoundError') return null;
    throw err;
  }
}

/**
 * The first block (within NONCE_SEARCH_BLOCKS of `head`) at whose end the sender's count is past `nonce`, by
 * binary search over eth_getTransactionCount at past blocks; null when it is older than the search, or the node
 * cannot answer counts at past blocks (pruned state): then nothing is concluded.
 */
async function blockThatUsed(chain: Chain, sender: Address, nonce: bigint, head: bigint): Promise<bigint | null> {
  const countAt = async (n: bigint) => BigInt(await chain.client.getTransactionCount({ address: sender, blockNumber: n }));
  try {
    let lo = head > NONCE_SEARCH_BLOCKS ? head - NONCE_SEARCH_BLOCKS : 0n;
    let hi = head;
    if ((await countAt(hi)) <= nonce) return null; // this node has not seen it used at `head`
    if ((await countAt(lo)) > nonce) return null; // used before the search window
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n;
      if ((await countAt(mid)) > nonce) hi = mid;
      else lo = mid;
    }
    return hi;
  } catch {
    return null;
  }
}

/**
 * Looks for the transaction that used `nonce` of `sender`: each of `hashes` by hash, then the block that used the
 * nonce and the wallet's transaction in it. Call it only once the nonce is used (nonceUsed).
 */
export async function findAtNonce(
  chain: Chain,
  sender: Address,
  nonce: bigint,
  hashes: readonly string[],
  head: bigint,
): Promise<NonceEvidence> {
  for (const hash of hashes) {
    const t = await transactionOf(chain, hash);
    if (t?.blockNumber !== null && t?.blockNumber !== undefined) return { kind: 'ours', hash, blockNumber: t.blockNumber };
  }
  const n = await blockThatUsed(chain, sender, nonce, head);
  if (n === null) return { kind: 'consumed' };
  let block;
  try {
    block = await chain.client.getBlock({ blockNumber: n, includeTransactions: true });
  } catch {
    return { kind: 'consumed' };
  }
  const from = getAddress(sender);
  const t = block.transactions.find((x) => typeof x !== 'string' && getAddress(x.from) === from && BigInt(x.nonce) === nonce);
  if (!t || typeof t === 'string') return { kind: 'consumed' };
  const hash = t.hash.toLowerCase();
  return hashes.includes(hash) ? { kind: 'ours', hash, blockNumber: n } : { kind: 'foreign', hash, blockNumber: n };
}

/** The evidence as log fields. */
export const evidenceFields = (e: NonceEvidence) =>
  e.kind === 'ours' || e.kind === 'foreign'
    ? { evidence: e.kind, found_hash: e.hash, found_block: e.blockNumber.toString() }
    : { evidence: e.kind };
