// The custodial deposit listener (docs/settlement-custodial.md): every USDC Transfer into a registered deposit
// address is credited once it has CHAIN_CONFIRMATIONS confirmations, exactly once per (chain, tx hash, log
// index). One scan (a scheduled job, workers/chain-deposits.worker.ts):
//   1. read the chain head; the confirmed head is head - CHAIN_CONFIRMATIONS + 1 (only blocks up to it are read,
//      so a transfer a reorganisation removes before its confirmations is never seen);
//   2. THEN read the registered addresses (an address handed out before the head was read is in the list, and
//      no transfer to a later one can be in a block up to that head);
//   3. check the hash of the cursor's block: a different hash is a reorganisation below the cursor (deeper than
//      CHAIN_CONFIRMATIONS): the scan stops and logs an error, nothing more is credited until an operator looks;
//   4. eth_getLogs over at most CHAIN_LOG_BLOCK_RANGE blocks after the cursor, the logs de-duplicated;
//   5. in ONE transaction holding the cursor's row lock, and only if the cursor has not moved meanwhile (another
//      listener): the credits (primary key: a log credited before inserts nothing), their ledger postings, and
//      the cursor moved to the range's last block and its hash. Repeat until the confirmed head is reached.
import { randomUUID } from 'node:crypto';
import { getAddress, parseAbiItem, type Address, type Hex } from 'viem';
import type { Em } from '../../../db/orm.js';
import { custodialRepository, type DepositLog } from '../../../db/repositories/custodial.repository.js';
import { db } from '../../../db/schema.js';
import type { Logger } from '../../../logger.js';
import { postAll } from '../../ledger/ledger.js';
import { depositPosting } from '../../money/operations.js';
import type { Chain } from './chain.js';

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
  ranges: number;
  /** The last block scanned (null: no address registered yet). */
  cursor: bigint | null;
  /** The cursor's block changed hash: a reorganisation below it; the scan stopped. */
  reorg?: boolean;
}

async function blockHash(chain: Chain, n: bigint): Promise<Hex> {
  return (await chain.client.getBlock({ blockNumber: n })).hash!;
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

/** One scan up to the confirmed head (at most MAX_RANGES_PER_SCAN ranges). Idempotent; safe in two processes at once. */
export async function scanDeposits(em: Em, chain: Chain, log: Logger, signal?: AbortSignal): Promise<ScanResult> {
  const { chainId, confirmations, logBlockRange } = chain.settings;
  const repo = custodialRepository(db(em));
  const head = await chain.client.getBlockNumber({ cacheTime: 0 });
  const confirmed = head - BigInt(confirmations) + 1n;
  const watched = await repo.watched(); // after the head: see step 2 above
  let cursor = await repo.cursor(chainId, DEPOSIT_CURSOR, false);
  if (!cursor) {
    if (watched.fromBlock === null) return { credited: 0, ranges: 0, cursor: null };
    const start = watched.fromBlock;
    if (start > confirmed) return { credited: 0, ranges: 0, cursor: null };
    await repo.initCursor(chainId, DEPOSIT_CURSOR, start, (await blockHash(chain, start)).toLowerCase());
    cursor = (await repo.cursor(chainId, DEPOSIT_CURSOR, false))!;
  }
  const addresses = watched.addresses.map((a) => getAddress(a));
  let at = { n: cursor.block_number, hash: cursor.block_hash };
  const result: ScanResult = { credited: 0, ranges: 0, cursor: at.n };
  while (at.n < confirmed && result.ranges < MAX_RANGES_PER_SCAN && !signal?.aborted) {
    const now = (await blockHash(chain, at.n)).toLowerCase();
    if (now !== at.hash) {
      log.error(
        { chain_id: chainId, block_number: at.n.toString(), scanned_hash: at.hash, chain_hash: now },
        'the chain was reorganised below the deposit cursor (deeper than CHAIN_CONFIRMATIONS): deposits are no longer credited until an operator checks the credits above this block and moves the cursor (docs/settlement-custodial.md)',
      );
      return { ...result, reorg: true };
    }
    const from = at.n + 1n;
    const to = from + BigInt(logBlockRange) - 1n < confirmed ? from + BigInt(logBlockRange) - 1n : confirmed;
    const logs = (await transfersInto(chain, addresses, from, to, log)).map((l) => ({ ...l, operationId: randomUUID() }));
    const toHash = (await blockHash(chain, to)).toLowerCase();
    const prev = at;
    const moved = await em.transactional(async (tx) => {
      const r = custodialRepository(db(tx));
      const c = await r.cursor(chainId, DEPOSIT_CURSOR, true);
      if (!c || c.block_number !== prev.n || c.block_hash !== prev.hash) return null; // another listener moved it
      const credits = logs.length ? await r.credit(chainId, logs) : [];
      if (credits.length)
        await postAll(
          tx,
          credits.map((c2) => depositPosting(c2.operation_id, c2.user_id, c2.amount)),
        );
      await r.moveCursor(chainId, DEPOSIT_CURSOR, to, toHash);
      return credits.length;
    });
    result.ranges++;
    if (moved === null) {
      const c = (await repo.cursor(chainId, DEPOSIT_CURSOR, false))!;
      at = { n: c.block_number, hash: c.block_hash };
    } else {
      result.credited += moved;
      if (moved)
        log.info({ chain_id: chainId, from_block: from.toString(), to_block: to.toString(), credited: moved }, 'custodial deposits credited');
      at = { n: to, hash: toHash };
    }
    result.cursor = at.n;
  }
  return result;
}
