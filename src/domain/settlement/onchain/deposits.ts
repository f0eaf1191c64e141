// The custodial deposit listener (docs/settlement-custodial.md): every USDC Transfer into a registered deposit
// address is credited once it has CHAIN_CONFIRMATIONS confirmations, exactly once per (chain, tx hash, log
// index). One scan (a scheduled job, workers/chain-deposits.worker.ts):
//   1. read the chain head; the confirmed head is head - CHAIN_CONFIRMATIONS + 1 (only blocks up to it are read,
//      so a transfer a reorganisation removes before its confirmations is never seen);
//   2. THEN read the registered addresses (an address handed out before the head was read is in the list, and
//      no transfer to a later one can be in a block up to that head);
//   3. from CHAIN_DEPOSIT_REREAD_BLOCKS below the cursor (a trailing window of confirmed blocks read again every
//      scan: a transfer a lagging backend answered `[]` for is credited now) up to the confirmed head, range by
//      range, each in one round trip (readRange): the cursor's block (a different hash is a reorganisation below
//      the cursor, deeper than CHAIN_CONFIRMATIONS: the scan stops and logs an error, nothing more is credited
//      until an operator looks), the range's last block (missing on the answering node, or disagreeing with its
//      logs: that node lags, the scan stops without moving the cursor past it) and eth_getLogs over the range,
//      de-duplicated. The range adapts to the provider (log-range.ts: halved on a range or size refusal, grown
//      back after answered ranges);
//   4. in ONE transaction holding the cursor's row lock, and only if the cursor has not moved meanwhile (another
//      listener): the credits (primary key (chain, tx hash, log index): a log credited before inserts nothing),
//      their ledger postings, and the cursor moved forwards to the range's last block and its hash. Repeat until
//      the confirmed head is reached.
// The scan's result is plain JSON (the cursor a decimal string): BullMQ stores it in Redis.
import { randomUUID } from 'node:crypto';
import { BlockNotFoundError, getAddress, parseAbiItem, type Address } from 'viem';
import type { Em } from '../../../db/orm.js';
import { type DepositLog } from '../../../db/repositories/custodial.repository.js';
import type { Logger } from '../../../logger.js';
import { postAll } from '../../ledger/ledger.js';
import { depositPosting } from '../adapter.js';
import type { Chain } from '../../../adapters/chain/chain.js';
import { isLogRangeError, LogRange } from './log-range.js';
import { repos } from '../../../db/repos.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** The listener's row in chain_cursors. */
export const DEPOSIT_CURSOR = 'custodial-deposits';
/** Addresses per eth_getLogs `to` filter (nodes cap request sizes). */
const ADDRESS_CHUNK = 500;
/** Ranges one scan covers at most (a job stays bounded; the next tick continues). */
const MAX_RANGES_PER_SCAN = 200;
const INT8_MAX = 2n ** 63n - 1n;

export interface ScanResult {
  credited: number;
  /** eth_getLogs ranges answered (the trailing window's included). */
  ranges: number;
  /** The last block scanned, as a decimal string (a job's result is JSON: no bigint; null: no address registered yet). */
  cursor: string | null;
  /** The cursor's block changed hash: a reorganisation below it; the scan stopped. */
  reorg?: boolean;
  /** The node that answered does not have a block of the range yet (a lagging backend): the scan stopped there. */
  behind?: boolean;
  /** eth_getLogs ranges the provider refused as too large (each halved the range). */
  refused?: number;
}

/** The adaptive eth_getLogs range of each chain client in this process (log-range.ts). */
const logRanges = new WeakMap<Chain, LogRange>();
function logRangeOf(chain: Chain): LogRange {
  let r = logRanges.get(chain);
  if (!r) logRanges.set(chain, (r = new LogRange(chain.settings.logBlockRange)));
  return r;
}

/** A block's hash, or null when the answering node does not have the block (it lags behind the head it reported). */
async function blockHashOrNull(chain: Chain, n: bigint): Promise<string | null> {
  try {
    return (await chain.client.getBlock({ blockNumber: n })).hash!.toLowerCase();
  } catch (err) {
    if (err instanceof BlockNotFoundError) return null;
    throw err;
  }
}

type RangeRead =
  | { kind: 'read'; logs: Omit<DepositLog, 'operationId'>[]; toHash: string }
  | { kind: 'behind'; block: bigint }
  | { kind: 'reorg'; chainHash: string };

/**
 * One range, in one round trip where the transport batches (CHAIN_RPC_URL's JSON-RPC batch goes to one backend):
 * the cursor's block, the range's last block and the logs. The cursor's block must still have the stored hash
 * (else a reorganisation below it); the range's last block must exist on the answering node and agree with the
 * logs of that block, else that node lags (its `[]` for blocks it does not have means nothing) and the range is
 * read again on the next scan.
 */
async function readRange(
  chain: Chain,
  addresses: readonly Address[],
  at: { n: bigint; hash: string },
  from: bigint,
  to: bigint,
  log: Logger,
): Promise<RangeRead> {
  const [atHash, toHash, logs] = await Promise.all([
    blockHashOrNull(chain, at.n),
    blockHashOrNull(chain, to),
    transfersInto(chain, addresses, from, to, log),
  ]);
  if (atHash === null) return { kind: 'behind', block: at.n };
  if (atHash !== at.hash) return { kind: 'reorg', chainHash: atHash };
  if (toHash === null) return { kind: 'behind', block: to };
  if (logs.some((l) => l.blockNumber === to && l.blockHash !== toHash)) return { kind: 'behind', block: to };
  return { kind: 'read', logs, toHash };
}

/** The Transfer logs of [from, to] into `addresses`, de-duplicated, removed ones dropped. */
async function transfersInto(
  chain: Chain,
  addresses: readonly Address[],
  from: bigint,
  to: bigint,
  log: Logger,
): Promise<Omit<DepositLog, 'operationId'>[]> {
  const seen = new Map<string, Omit<DepositLog, 'operationId'>>();
  for (let i = 0; i < addresses.length; i += ADDRESS_CHUNK) {
    const logs = await chain.client.getLogs({
      address: chain.token,
      event: TRANSFER,
      args: { to: addresses.slice(i, i + ADDRESS_CHUNK) },
      fromBlock: from,
      toBlock: to,
    });
    for (const l of logs) {
      if (l.removed || l.blockNumber === null || l.blockNumber < from || l.blockNumber > to) continue;
      const value = l.args.value ?? 0n;
      if (value <= 0n) continue;
      if (value > INT8_MAX) {
        log.error(
          { tx_hash: l.transactionHash, log_index: l.logIndex, value: value.toString() },
          'a deposit transfer larger than int8 micros is not credited',
        );
        continue;
      }
      const key = `${l.transactionHash}:${l.logIndex}`;
      if (seen.has(key)) continue; // a node answering a log twice
      seen.set(key, {
        txHash: l.transactionHash!.toLowerCase(),
        logIndex: l.logIndex!,
        blockNumber: l.blockNumber,
        blockHash: l.blockHash!.toLowerCase(),
        from: getAddress(l.args.from!),
        to: getAddress(l.args.to!),
        amount: value,
      });
    }
  }
  return [...seen.values()];
}

/** The first block a scan reads: CHAIN_DEPOSIT_REREAD_BLOCKS below the cursor's next block (never below 0). */
function firstBlock(cursor: bigint, reread: number): bigint {
  const b = cursor + 1n - BigInt(reread);
  return b > 0n ? b : 0n;
}

/**
 * Credits a range's logs and moves the cursor to its end (only forwards: a range of the trailing window leaves it),
 * in ONE transaction holding the cursor's row lock; null when another listener moved the cursor meanwhile.
 */
async function commitRange(em: Em, chainId: number, prev: { n: bigint; hash: string }, to: bigint, toHash: string, logs: DepositLog[]) {
  return em.transactional(async (tx) => {
    const r = repos(tx).custodial;
    const c = await r.cursor(chainId, DEPOSIT_CURSOR, true);
    if (!c || c.block_number !== prev.n || c.block_hash !== prev.hash) return null; // another listener moved it
    const credits = logs.length ? await r.credit(chainId, logs) : [];
    if (credits.length)
      await postAll(
        tx,
        credits.map((c2) => depositPosting(c2.operation_id, c2.user_id, c2.amount)),
      );
    if (to > prev.n) await r.moveCursor(chainId, DEPOSIT_CURSOR, to, toHash);
    return credits.length;
  });
}

/** The cursor, created at the lowest registered from_block the first time; undefined while there is nothing to scan. */
async function cursorOf(chain: Chain, em: Em, fromBlock: bigint | null, confirmed: bigint) {
  const repo = repos(em).custodial;
  const { chainId } = chain.settings;
  const cursor = await repo.cursor(chainId, DEPOSIT_CURSOR, false);
  if (cursor) return cursor;
  if (fromBlock === null || fromBlock > confirmed) return undefined;
  const hash = await blockHashOrNull(chain, fromBlock);
  if (hash === null) return undefined; // the answering node lags: next scan
  await repo.initCursor(chainId, DEPOSIT_CURSOR, fromBlock, hash);
  return (await repo.cursor(chainId, DEPOSIT_CURSOR, false))!;
}

/** One scan up to the confirmed head (at most MAX_RANGES_PER_SCAN ranges). Idempotent; safe in two processes at once. */
export async function scanDeposits(em: Em, chain: Chain, log: Logger, signal?: AbortSignal): Promise<ScanResult> {
  const { chainId, confirmations, depositRereadBlocks } = chain.settings;
  const repo = repos(em).custodial;
  const head = await chain.client.getBlockNumber({ cacheTime: 0 });
  const confirmed = head - BigInt(confirmations) + 1n;
  const watched = await repo.watched(); // after the head: see step 2 above
  const cursor = await cursorOf(chain, em, watched.fromBlock, confirmed);
  if (!cursor) return { credited: 0, ranges: 0, cursor: null };
  const addresses = watched.addresses.map((a) => getAddress(a));
  const range = logRangeOf(chain);
  let at = { n: cursor.block_number, hash: cursor.block_hash };
  let from = firstBlock(at.n, depositRereadBlocks);
  const result: ScanResult = { credited: 0, ranges: 0, cursor: at.n.toString() };
  let refused = 0;
  while (from <= confirmed && result.ranges + refused < MAX_RANGES_PER_SCAN && !signal?.aborted) {
    const to = from + BigInt(range.blocks) - 1n < confirmed ? from + BigInt(range.blocks) - 1n : confirmed;
    let read: RangeRead;
    try {
      read = await readRange(chain, addresses, at, from, to, log);
    } catch (err) {
      if (!isLogRangeError(err) || !range.refused()) throw err;
      refused++;
      log.info(
        { chain_id: chainId, blocks: Number(to - from + 1n), next_blocks: range.blocks },
        'the provider refused an eth_getLogs range as too large: halved',
      );
      continue;
    }
    range.ok();
    if (read.kind === 'reorg') {
      log.error(
        { chain_id: chainId, block_number: at.n.toString(), scanned_hash: at.hash, chain_hash: read.chainHash },
        'the chain was reorganised below the deposit cursor (deeper than CHAIN_CONFIRMATIONS): deposits are no longer credited until an operator checks the credits above this block and moves the cursor (docs/settlement-custodial.md)',
      );
      return { ...result, reorg: true, ...(refused ? { refused } : {}) };
    }
    if (read.kind === 'behind') {
      log.info(
        { chain_id: chainId, block_number: read.block.toString() },
        'the node that answered lags behind the head it reported: the range is read again on the next scan',
      );
      return { ...result, behind: true, ...(refused ? { refused } : {}) };
    }
    const logs = read.logs.map((l) => ({ ...l, operationId: randomUUID() }));
    const moved = await commitRange(em, chainId, at, to, read.toHash, logs);
    result.ranges++;
    if (moved === null) {
      const c = (await repo.cursor(chainId, DEPOSIT_CURSOR, false))!;
      at = { n: c.block_number, hash: c.block_hash };
      from = at.n + 1n;
    } else {
      result.credited += moved;
      if (moved)
        log.info(
          { chain_id: chainId, from_block: from.toString(), to_block: to.toString(), credited: moved },
          'custodial deposits credited',
        );
      if (to > at.n) at = { n: to, hash: read.toHash };
      from = to + 1n;
    }
    result.cursor = at.n.toString();
  }
  return refused ? { ...result, refused } : result;
}
