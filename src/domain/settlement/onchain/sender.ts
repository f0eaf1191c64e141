// The chain side of one deposit or withdrawal, exactly once on the chain (docs/settlement.md):
//   1. sign: in ONE database transaction holding the operation's row lock, take the settlement wallet's next
//      nonce from chain_nonces, sign locally, and store the signed bytes and hash. Nothing is broadcast yet.
//   2. broadcast the stored bytes (every attempt; again after any restart: the bytes, never a new signature).
//   3. wait for a receipt of any of the operation's hashes and for CHAIN_CONFIRMATIONS blocks; a transaction
//      not mined after CHAIN_REPLACE_AFTER_MS is replaced at the SAME nonce with a higher fee (stored first,
//      then broadcast), so at most one of them can ever be mined.
//   4. record the outcome (success / reverted / dropped) on the mined transaction's row.
// The ledger posting follows in the settlement worker's transaction (src/domain/money/operations.ts), which
// reads the recorded outcome through the adapter. Node errors never fail an operation: they are retried.
import { encodeFunctionData, erc20Abi, getAddress, keccak256, type Address, type Hex, type TransactionReceipt } from 'viem';
import type { Em } from '../../../db/orm.js';
import { chainRepository, type ChainTxRow, type OperationForChain } from '../../../db/repositories/chain.repository.js';
import { db } from '../../../db/schema.js';
import { failpoint } from '../../../failpoints.js';
import type { Logger } from '../../../logger.js';
import { shortReason, type Chain } from './chain.js';

/** Gas limit of a token transfer or transferFrom (USDC on Base uses ~40-65k; unused gas is not charged). */
export const TRANSFER_GAS = 150_000n;

/** A replacement pays at least this much more than the transaction it replaces (nodes require >= 10%). */
export const bump = (fee: bigint) => fee + fee / 4n + 1n;

export interface AdvanceOptions {
  log: Logger;
  signal?: AbortSignal;
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

function callData(op: OperationForChain, settlement: Address): Hex {
  if (op.kind === 'withdraw') {
    return encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(op.destination_address!), op.amount] });
  }
  return encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [getAddress(op.wallet_address), settlement, op.amount] });
}

/**
 * Signs and stores the operation's next transaction (attempt 0, or a replacement of `after`) unless another
 * process did it first (the operation's row lock decides). Returns whether this call stored one.
 */
async function signAndStore(em: Em, chain: Chain, opId: string, after: ChainTxRow | undefined): Promise<boolean> {
  const fees = await chain.client.estimateFeesPerGas();
  let maxFeePerGas = fees.maxFeePerGas;
  let maxPriorityFeePerGas = fees.maxPriorityFeePerGas;
  if (after) {
    maxFeePerGas = [maxFeePerGas, bump(after.max_fee_per_gas)].reduce((a, b) => (a > b ? a : b));
    maxPriorityFeePerGas = [maxPriorityFeePerGas, bump(after.max_priority_fee_per_gas)].reduce((a, b) => (a > b ? a : b));
  }
  if (maxPriorityFeePerGas > maxFeePerGas) maxFeePerGas = maxPriorityFeePerGas;
  return em.transactional(async (tx) => {
    const repo = chainRepository(db(tx));
    const op = await repo.operation(opId, true);
    if (!op || op.status !== 'pending') return false;
    const txs = await repo.transactions(opId);
    const latest = txs.at(-1);
    if (txs.some((t) => t.receipt_status) || latest?.hash !== after?.hash) return false; // someone else moved first
    const { settings, account } = chain;
    const nonce = latest ? latest.nonce : await repo.allocateNonce(settings.chainId, account.address);
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: settings.chainId,
      nonce: Number(nonce),
      to: chain.token,
      data: callData(op, account.address),
      value: 0n,
      gas: TRANSFER_GAS,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    await repo.insertTransaction({
      hash: keccak256(raw),
      chainId: settings.chainId,
      operationId: opId,
      from: account.address,
      nonce,
      attempt: latest ? latest.attempt + 1 : 0,
      raw,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    return true;
  });
}

/** Sends the stored bytes; a node that already knows them, or already mined the nonce, is not an error. */
export async function broadcast(chain: Chain, txs: readonly Pick<ChainTxRow, 'hash' | 'raw'>[], log: Logger): Promise<void> {
  for (const t of txs) {
    try {
      await chain.client.sendRawTransaction({ serializedTransaction: t.raw as Hex });
    } catch (err) {
      const reason = shortReason(err);
      if (/already known|nonce too low|underpriced|already imported|known transaction/i.test(reason)) continue;
      if (/fetch failed|timed out|timeout|ECONNREFUSED|socket|network|HTTP request failed/i.test(reason)) throw err;
      log.warn({ tx_hash: t.hash, reason }, 'the node refused a settlement transaction; waiting for its receipt or a replacement');
    }
  }
}

export async function receiptOf(chain: Chain, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await chain.client.getTransactionReceipt({ hash: hash as Hex });
  } catch (err) {
    if ((err as { name?: string }).name === 'TransactionReceiptNotFoundError') return null;
    throw err;
  }
}

type Step = { outcome: 'recorded' } | { outcome: 'replace'; after: ChainTxRow };

/** Polls until an attempt has its confirmations (then records it) or until the newest attempt is due for replacement. */
async function waitForOutcome(em: Em, chain: Chain, opId: string, txs: readonly ChainTxRow[], opts: AdvanceOptions): Promise<Step | null> {
  const { confirmations, replaceAfterMs, pollMs } = chain.settings;
  const latest = txs.at(-1)!;
  const since = Date.now();
  while (!opts.signal?.aborted) {
    const head = await chain.client.getBlockNumber({ cacheTime: 0 });
    let mined = false;
    for (const t of [...txs].reverse()) {
      const receipt = await receiptOf(chain, t.hash);
      if (!receipt) continue;
      mined = true;
      if (head - receipt.blockNumber + 1n < BigInt(confirmations)) break; // mined: wait for its confirmations, never replace
      await chainRepository(db(em)).recordOutcome(opId, t.hash, receipt.status === 'success' ? 'success' : 'reverted', receipt.blockNumber);
      failpoint('chain:afterReceipt');
      return { outcome: 'recorded' };
    }
    // No receipt: did a transaction this service never signed take the nonce in a confirmed block?
    const confirmedAt = head - BigInt(confirmations) + 1n;
    if (!mined && confirmedAt >= 0n) {
      const used = await chain.client.getTransactionCount({ address: chain.account.address, blockNumber: confirmedAt });
      if (BigInt(used) > latest.nonce && !(await anyReceipt(chain, txs))) {
        opts.log.error({ operation_id: opId, nonce: latest.nonce.toString() }, 'another transaction took this settlement nonce; the operation fails');
        await chainRepository(db(em)).recordOutcome(opId, latest.hash, 'dropped', null);
        return { outcome: 'recorded' };
      }
    }
    if (!mined && Date.now() - since >= replaceAfterMs) return { outcome: 'replace', after: latest };
    await sleep(pollMs, opts.signal);
  }
  return null;
}

async function anyReceipt(chain: Chain, txs: readonly ChainTxRow[]) {
  for (const t of txs) if (await receiptOf(chain, t.hash)) return true;
  return false;
}

/**
 * Drives one operation's transaction until its outcome is recorded (or the operation is no longer pending,
 * or `signal` aborts: then it returns early and the job is retried). Node errors are logged and retried
 * every CHAIN_POLL_MS; database errors are thrown (the job is retried).
 */
export async function advanceOnchain(em: Em, chain: Chain, opId: string, opts: AdvanceOptions): Promise<void> {
  const repo = chainRepository(db(em));
  let nodeDown = 0;
  while (!opts.signal?.aborted) {
    const op = await repo.operation(opId, false);
    if (!op || op.status !== 'pending') return;
    const txs = await repo.transactions(opId);
    if (txs.some((t) => t.receipt_status)) return;
    try {
      if (!txs.length) {
        await signAndStore(em, chain, opId, undefined);
        failpoint('chain:afterSign');
        continue;
      }
      await broadcast(chain, txs, opts.log);
      failpoint('chain:afterBroadcast');
      const step = await waitForOutcome(em, chain, opId, txs, opts);
      if (!step || step.outcome === 'recorded') return;
      opts.log.info(
        { operation_id: opId, nonce: step.after.nonce.toString(), replaces: step.after.hash },
        'settlement transaction not mined in time: replacing it',
      );
      await signAndStore(em, chain, opId, step.after);
      nodeDown = 0;
    } catch (err) {
      if (isDatabaseError(err)) throw err;
      if (nodeDown++ % 20 === 0) opts.log.warn({ operation_id: opId, reason: shortReason(err) }, 'chain node error while settling; retrying');
      await sleep(chain.settings.pollMs, opts.signal);
    }
  }
}

/** Errors of viem are the node's; anything carrying an SQLSTATE (or a failpoint) is the database's. */
export function isDatabaseError(err: unknown): boolean {
  const e = err as { code?: unknown; name?: string };
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}
