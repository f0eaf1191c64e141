// Sweeps (docs/settlement-custodial.md): the USDC credited into custodial deposit addresses is moved into the
// settlement wallet, so every withdrawal is paid from one wallet. Gas: the settlement wallet tops the address up
// with ETH for one token transfer (its nonce taken from chain_nonces like every settlement transaction: it is
// shared with withdrawals), then the address's own key (derived from DEPOSIT_MNEMONIC) sends
// transfer(settlement wallet, its whole balance). Each step is a transaction signed and stored (deposit_sweeps,
// chain_transactions) BEFORE it is broadcast, and a step only moves on once its transaction has
// CHAIN_CONFIRMATIONS confirmations: a restart re-broadcasts the stored bytes and resumes where it was. A
// transaction not mined after CHAIN_REPLACE_AFTER_MS is replaced at the same nonce with a higher fee. One scheduled
// tick (workers/chain-deposits.worker.ts) opens the sweeps that are due and moves each open one by one step; it
// never waits on the chain. Until a sweep's transfer is mined the USDC stays in the address, where the
// reconciliation counts it (unsweptHoldings).
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, getAddress, keccak256, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Em } from '../../../db/orm.js';
import { chainRepository } from '../../../db/repositories/chain.repository.js';
import { custodialRepository, type ActiveSweep, type SweepStatus, type SweepTxRow } from '../../../db/repositories/custodial.repository.js';
import { db } from '../../../db/schema.js';
import { failpoint } from '../../../failpoints.js';
import type { Logger } from '../../../logger.js';
import { shortReason, type Chain } from './chain.js';
import type { UnsweptAddresses } from './reconcile.js';
import { nonceUsed } from './nonce-evidence.js';
import { broadcast, bump, isDatabaseError, receiptOf, TRANSFER_GAS } from './sender.js';

/** Gas of a plain ETH transfer to an externally owned account (the top-up). */
const TOPUP_GAS = 21_000n;
/** Sweeps opened per tick at most. */
const OPEN_PER_TICK = 50;

export interface SweepTick {
  opened: number;
  advanced: number;
}

type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
type Progress = 'success' | 'reverted' | 'waiting' | 'stale';

/** The transactions whose nonce has no recorded outcome yet (a replacement shares its nonce with the one it replaces). */
const unresolved = (txs: readonly SweepTxRow[]) => {
  const done = new Set(txs.filter((t) => t.receipt_status).map((t) => t.nonce));
  return txs.filter((t) => !done.has(t.nonce));
};

/** Re-broadcasts the open transactions; records the outcome of one with its confirmations. */
async function progress(em: Em, chain: Chain, open: readonly SweepTxRow[], log: Logger): Promise<Progress> {
  await broadcast(chain, open, log);
  const head = await chain.client.getBlockNumber({ cacheTime: 0 });
  for (const t of [...open].reverse()) {
    const receipt = await receiptOf(chain, t.hash);
    if (!receipt) continue;
    if (head - receipt.blockNumber + 1n < BigInt(chain.settings.confirmations)) return 'waiting';
    const status = receipt.status === 'success' ? 'success' : 'reverted';
    await custodialRepository(db(em)).recordSweepOutcome(t.hash, status, receipt.blockNumber);
    return status;
  }
  const last = open.at(-1)!;
  if (Date.now() - new Date(last.created_at).getTime() < chain.settings.replaceAfterMs) return 'waiting';
  // No receipt served. A replacement is only worth signing while the nonce is unused: once a block used it, a
  // missing receipt is a lagging node, not a lost transaction (docs/settlement.md), and the sweep waits for it.
  if (await nonceUsed(chain, getAddress(last.from_address), last.nonce)) {
    log.warn(
      { tx_hash: last.hash, from: last.from_address, nonce: last.nonce.toString() },
      'sweep transaction: its nonce is used on chain but the node serves no receipt yet; waiting, not replacing',
    );
    return 'waiting';
  }
  return 'stale';
}

interface Send {
  account: PrivateKeyAccount;
  to: Address;
  data?: Hex;
  value: bigint;
  gas: bigint;
}

/**
 * Signs and stores the sweep's next transaction from `send.account` (or a same-nonce replacement of `replaces`),
 * under the sweep's row lock, unless the sweep left `expect` or someone stored one since we read `seen`; then
 * broadcasts it. `amount`: the transfer's USDC, recorded with it.
 */
async function signAndSend(
  em: Em,
  chain: Chain,
  sweepId: string,
  expect: SweepStatus,
  seen: number,
  send: Send,
  fees: Fees,
  log: Logger,
  o: { replaces?: SweepTxRow; amount?: bigint } = {},
) {
  const { chainId } = chain.settings;
  let maxFeePerGas = fees.maxFeePerGas;
  let maxPriorityFeePerGas = fees.maxPriorityFeePerGas;
  if (o.replaces) {
    const [f, p] = [bump(o.replaces.max_fee_per_gas), bump(o.replaces.max_priority_fee_per_gas)];
    if (f > maxFeePerGas) maxFeePerGas = f;
    if (p > maxPriorityFeePerGas) maxPriorityFeePerGas = p;
  }
  if (maxPriorityFeePerGas > maxFeePerGas) maxFeePerGas = maxPriorityFeePerGas;
  const stored = await em.transactional(async (tx) => {
    const r = custodialRepository(db(tx));
    const chainRepo = chainRepository(db(tx));
    if ((await r.lockSweep(sweepId)) !== expect) return null;
    const txs = await r.sweepTransactions(sweepId, send.account.address);
    if (txs.length !== seen) return null; // another process moved first
    const nonce = o.replaces ? o.replaces.nonce : await chainRepo.allocateNonce(chainId, send.account.address);
    const raw = await send.account.signTransaction({
      type: 'eip1559',
      chainId,
      nonce: Number(nonce),
      to: send.to,
      data: send.data,
      value: send.value,
      gas: send.gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    const hash = keccak256(raw);
    await chainRepo.insertTransaction({
      hash,
      chainId,
      operationId: null,
      sweepId,
      from: send.account.address,
      nonce,
      attempt: txs.length,
      raw,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    if (o.amount !== undefined) await r.setSweep(sweepId, expect, o.amount);
    return { hash, raw };
  });
  if (!stored) return;
  failpoint(expect === 'topup' ? 'sweep:afterTopupSign' : 'sweep:afterTransferSign');
  await broadcast(chain, [stored], log);
}

/**
 * Moves the sweep from `from` to `to` under its row lock, unless it left `from` meanwhile or one of its
 * transactions sent by `sender` still awaits its outcome (another process signed it after we looked: its
 * receipt is recorded first, on a later tick).
 */
async function moveIfSettled(em: Em, s: ActiveSweep, sender: string, from: SweepStatus, to: SweepStatus): Promise<void> {
  await em.transactional(async (tx) => {
    const r = custodialRepository(db(tx));
    if ((await r.lockSweep(s.id)) !== from) return;
    if (unresolved(await r.sweepTransactions(s.id, sender)).length) return;
    await r.setSweep(s.id, to);
  });
}

/** The top-up step: wait for the open top-up, else move on when the address holds gas for one transfer, else send one. */
async function topUp(em: Em, chain: Chain, s: ActiveSweep, log: Logger): Promise<void> {
  const r = custodialRepository(db(em));
  const address = getAddress(s.address);
  const txs = await r.sweepTransactions(s.id, chain.settlementAddress);
  const open = unresolved(txs);
  const fees = await chain.client.estimateFeesPerGas();
  const need = TRANSFER_GAS * fees.maxFeePerGas;
  const eth = await chain.client.getBalance({ address });
  // Twice the gas of one transfer at today's fee: room for a fee rise and one replacement.
  const send: Send = { account: chain.account, to: address, value: 2n * need - eth > need ? 2n * need - eth : need, gas: TOPUP_GAS };
  if (open.length) {
    const p = await progress(em, chain, open, log);
    if (p === 'stale') await signAndSend(em, chain, s.id, 'topup', txs.length, send, fees, log, { replaces: open.at(-1) });
    return;
  }
  if (eth >= need) return moveIfSettled(em, s, chain.settlementAddress, 'topup', 'transfer');
  await signAndSend(em, chain, s.id, 'topup', txs.length, send, fees, log);
}

/** The transfer step: wait for the open transfer (done / failed), else sign transfer(settlement wallet, balance). */
async function transfer(em: Em, chain: Chain, s: ActiveSweep, log: Logger): Promise<void> {
  const r = custodialRepository(db(em));
  const address = getAddress(s.address);
  const account = chain.depositAccount(s.deposit_index);
  if (account.address !== address) {
    log.error(
      { sweep_id: s.id, address, deposit_index: s.deposit_index.toString() },
      'DEPOSIT_MNEMONIC does not derive this registered deposit address: the sweep waits',
    );
    return;
  }
  const txs = await r.sweepTransactions(s.id, address);
  const open = unresolved(txs);
  const fees = await chain.client.estimateFeesPerGas();
  const eth = await chain.client.getBalance({ address });
  if (open.length) {
    const p = await progress(em, chain, open, log);
    if (p === 'success' || p === 'reverted') {
      await r.setSweep(s.id, p === 'success' ? 'done' : 'failed');
      if (p === 'reverted') await r.markUnswept(s.address);
      log.info({ sweep_id: s.id, address, outcome: p }, 'custodial deposit sweep finished');
    } else if (p === 'stale') {
      const last = open.at(-1)!;
      const affordable = eth / TRANSFER_GAS;
      if (bump(last.max_fee_per_gas) > affordable) {
        log.warn({ sweep_id: s.id, address }, 'sweep transfer not mined and the address lacks the gas to replace it; waiting');
        return;
      }
      await signAndSend(em, chain, s.id, 'transfer', txs.length, sweepSend(account, chain, s.amount ?? 0n), fees, log, { replaces: last });
    }
    return;
  }
  const balance = await chain.tokenBalance(address);
  if (balance === 0n) return moveIfSettled(em, s, address, 'transfer', 'done');
  if (eth < TRANSFER_GAS * fees.maxFeePerGas) return moveIfSettled(em, s, address, 'transfer', 'topup'); // fees rose: top up again
  const nodeNonce = await chain.client.getTransactionCount({ address, blockTag: 'pending' });
  await chainRepository(db(em)).ensureNonce(chain.settings.chainId, address, BigInt(nodeNonce));
  await signAndSend(em, chain, s.id, 'transfer', txs.length, sweepSend(account, chain, balance), fees, log, { amount: balance });
}

const sweepSend = (account: PrivateKeyAccount, chain: Chain, amount: bigint): Send => ({
  account,
  to: chain.token,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [chain.settlementAddress, amount] }),
  value: 0n,
  gas: TRANSFER_GAS,
});

/** One sweeper tick: opens the sweeps that are due, then moves every open sweep by one step. Safe in two processes at once. */
export async function stepSweeps(em: Em, chain: Chain, log: Logger): Promise<SweepTick> {
  const { chainId, sweepMinMicros } = chain.settings;
  const repo = custodialRepository(db(em));
  const tick: SweepTick = { opened: 0, advanced: 0 };
  for (const c of await repo.sweepCandidates(chainId, OPEN_PER_TICK)) {
    const balance = await chain.tokenBalance(getAddress(c.address));
    if (balance < sweepMinMicros) {
      await repo.markSwept(c.address, c.credits); // dust: waits for the next credit
      continue;
    }
    const opened = await em.transactional(async (tx) => {
      const r = custodialRepository(db(tx));
      if (!(await r.openSweep(randomUUID(), chainId, c.address))) return false;
      await r.markSwept(c.address, c.credits);
      return true;
    });
    if (opened) tick.opened++;
  }
  for (const s of await repo.activeSweeps(chainId)) {
    try {
      await (s.status === 'topup' ? topUp : transfer)(em, chain, s, log);
      tick.advanced++;
    } catch (err) {
      if (isDatabaseError(err)) throw err;
      log.warn({ sweep_id: s.id, address: s.address, reason: shortReason(err) }, 'chain node error while sweeping; retried on the next tick');
    }
  }
  return tick;
}

/**
 * The reconciliation's hook (src/domain/settlement/onchain/reconcile.ts): the deposit addresses that were ever
 * credited; whatever USDC they still hold is not swept yet and counts as held. `npm run ledger:check` runs it through its own
 * connection.
 */
export const unsweptDepositAddresses: UnsweptAddresses = async (repo) => (await repo.creditedDepositAddresses()).map((a) => getAddress(a));
