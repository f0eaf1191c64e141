// Sweeps (docs/settlement-custodial.md): the USDC credited into custodial deposit addresses is moved into the
// settlement wallet, so every withdrawal is paid from one wallet. Gas: the settlement wallet tops the address up
// with ETH for one token transfer, then the address's own key (derived from DEPOSIT_MNEMONIC) sends
// transfer(settlement wallet, its whole balance). Each step is a chain transaction of the one module
// (chain-tx/drive.ts: signed and stored before broadcast, replaced only at an unused nonce within the fee cap, a
// missing receipt never taken as "not mined"); a step only moves on once its transaction has
// CHAIN_CONFIRMATIONS confirmations. One scheduled tick (workers/chain-deposits.worker.ts) opens the sweeps that
// are due and moves each open one by one step; it never waits on the chain.
// Sweeps that stop: before a top-up or a transfer is signed, a dry run of the address's transfer tells whether the
// token would refuse it: a blacklisted address is parked at once (no top-up is ever sent for it), a paused token
// waits. A transfer that reverts anyway is retried with backoff (CHAIN_SWEEP_BACKOFF_MS, doubling) and parked after
// SWEEP_MAX_FAILURES in a row, with its reason and an alert; a sweep whose nonce is used without a receipt goes to
// the same park after CHAIN_RECEIPT_REVIEW_AFTER_MS. Until swept, the USDC stays in the address, where the
// reconciliation counts it (unsweptHoldings).
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, getAddress, type Address } from 'viem';
import type { Em } from '../../../db/orm.js';
import { type ActiveSweep, type SweepStatus } from '../../../db/repositories/custodial.repository.js';
import type { Logger } from '../../../logger.js';
import { shortReason, type Chain } from '../../../adapters/chain/chain.js';
import { stepTx, type ChainSigner, type TxEnv, type TxOwner, type TxSpec } from './chain-tx/drive.js';
import { capFees, maxCostWei } from './chain-tx/fees.js';
import { estimateFees } from './chain-tx/observe.js';
import { TRANSFER_GAS } from './chain-tx/operation-owner.js';
import type { Preflight } from './chain-tx/plan.js';
import { tokenPaused, simulate } from './chain-tx/token-checks.js';
import { isDatabaseError, policyOf } from './sender.js';
import { repos } from '../../../db/repos.js';

/** Gas of a plain ETH transfer to an externally owned account (the top-up). */
const TOPUP_GAS = 21_000n;
/** Sweeps opened per tick at most. */
const OPEN_PER_TICK = 50;
/** Reverted sweeps in a row before an address is parked. */
export const SWEEP_MAX_FAILURES = 3;
/** The first retry after a reverted sweep; each further one waits twice as long. */
export const SWEEP_BACKOFF_MS = 60_000;

export interface SweepTick {
  opened: number;
  advanced: number;
}

interface Ctx {
  em: Em;
  chain: Chain;
  env: TxEnv;
  log: Logger;
}

/** A sweep's open transactions from `from` (the top-ups: the settlement wallet; the transfer: the address): those whose nonce has no outcome. */
async function openAttempts(em: Em, sweepId: string, from: string) {
  const all = await repos(em).chainTx.attempts({ purpose: 'sweep', sweepId }, from);
  const done = new Set(all.filter((t) => t.receipt_status).map((t) => t.nonce));
  return { all, open: all.filter((t) => !done.has(t.nonce)) };
}

/** The dry run of the address's transfer: a blacklisted address parks the sweep, a paused token waits. */
async function sweepPreflight(chain: Chain, address: Address, amount: bigint): Promise<Preflight> {
  if (await tokenPaused(chain)) return { ok: false, wait: 'token_paused' };
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [chain.settlementAddress, amount] });
  const reverts = await simulate(chain, address, chain.token, data, 0n);
  if (reverts === null) return { ok: true };
  return { ok: false, fail: /blacklist/i.test(reverts) ? 'blacklisted' : `reverts: ${reverts}` };
}

/** The owner of one step's transaction (drive.ts): its attempts, lock, preflight and what its outcome does to the sweep. */
function sweepOwner(
  c: Ctx,
  s: ActiveSweep,
  step: 'topup' | 'transfer',
  signer: ChainSigner,
  spec: TxSpec,
  balance: bigint,
  decided?: TopUpDecision,
): TxOwner {
  const { em, chain, log } = c;
  const address = getAddress(s.address);
  const fields = { sweep_id: s.id, address, step };
  const columns = { purpose: 'sweep' as const, sweepId: s.id };
  // Under the sweep's lock, and only while it is still at this step with no open attempt (another sweeper may have
  // finished it meanwhile); a review parks it with its attempt open, the nonce used.
  const park = async (reason: string, review = false) => {
    const parked = await em.transactional(async (tx) => {
      const r = repos(tx).custodial;
      if ((await r.lockSweep(s.id)) !== step) return false;
      if (!review && (await openAttempts(tx, s.id, signer.address)).open.length) return false;
      await r.park(s.address, reason);
      await r.setSweep(s.id, 'failed');
      return true;
    });
    if (parked)
      log.error(
        { ...fields, reason },
        'custodial deposit address parked: its sweeps stop (no top-up, no transfer) until an operator unparks it',
      );
  };
  return {
    columns,
    signer,
    fields,
    afterSignFailpoint: step === 'topup' ? 'sweep:afterTopupSign' : 'sweep:afterTransferSign',
    spec: () => spec,
    attempts: async (e) => (await openAttempts(e, s.id, signer.address)).open,
    async lockToSign(tx, seen) {
      const r = repos(tx).custodial;
      if ((await r.lockSweep(s.id)) !== step) return null;
      const { all, open } = await openAttempts(tx, s.id, signer.address);
      if (open.length !== seen.length) return null; // another process moved first
      if (decided && !seen.length && !freshTopUpStands(decided, all.length)) return null;
      if (step === 'transfer' && !seen.length) await r.setSweep(s.id, 'transfer', balance);
      return { attempt: all.length };
    },
    preflight: () => sweepPreflight(chain, address, balance),
    async onRecorded(e, _hash, status) {
      const r = repos(e).custodial;
      if (step === 'topup') return;
      await r.setSweep(s.id, status === 'success' ? 'done' : 'failed');
      if (status === 'success') await r.sweepSucceeded(s.address);
      // Decided in SQL (CustodialRepository.sweepFailed): the next try after backoff x 2^(failures - 1), and the
      // address parked once it failed SWEEP_MAX_FAILURES times in a row.
      else if (await r.sweepFailed(s.address, 'reverted', SWEEP_MAX_FAILURES, SWEEP_BACKOFF_MS))
        log.error(fields, 'sweep reverted too often: address parked');
      log.info({ ...fields, outcome: status }, 'custodial deposit sweep finished');
    },
    onReview: () => park('unproven: its nonce is used but no receipt was served within CHAIN_RECEIPT_REVIEW_AFTER_MS', true),
    onFail: (_e, code) => park(code),
  };
}

/**
 * What topUp read before it decided: the sweep's top-ups then, all and open, and (after them) the address's ETH.
 * A sweep stays at `topup` when its top-up is recorded, so the sweep's status alone cannot tell two sweepers apart:
 * one that read the top-up open, and drives it, finds it recorded by the other when drive.ts reads it again, and
 * would sign a second top-up on a balance it never checked (issue 33: seen on CI after a crash, a stalled tick and
 * the restarted worker's own tick at once).
 */
interface TopUpDecision {
  all: number;
  open: number;
}

/**
 * A fresh top-up is signed only on the decision that wanted it: no top-up was open when topUp read them, and none was
 * signed since (its ETH balance, read after, then covers every recorded one). Pure; under the sweep's lock.
 */
export function freshTopUpStands(decided: TopUpDecision, attemptsNow: number): boolean {
  return decided.open === 0 && attemptsNow === decided.all;
}

/** Moves the sweep from `from` to `to` under its row lock, unless it left `from` or has an open transaction from `sender`. */
async function moveIfSettled(em: Em, s: ActiveSweep, sender: string, from: SweepStatus, to: SweepStatus): Promise<void> {
  await em.transactional(async (tx) => {
    const r = repos(tx).custodial;
    if ((await r.lockSweep(s.id)) !== from) return;
    if ((await openAttempts(tx, s.id, sender)).open.length) return;
    await r.setSweep(s.id, to);
  });
}

/** The top-up step: step the open top-up; else move on when the address holds gas for one transfer; else sign one. */
async function topUp(c: Ctx, s: ActiveSweep): Promise<void> {
  const { em, chain } = c;
  const address = getAddress(s.address);
  const { all, open } = await openAttempts(em, s.id, chain.settlementAddress);
  const fees = capFees(await estimateFees(chain), chain.settings.feeCap).fees;
  const need = maxCostWei(TRANSFER_GAS, fees, 0n);
  const eth = await chain.client.getBalance({ address });
  if (!open.length && eth >= need) return moveIfSettled(em, s, chain.settlementAddress, 'topup', 'transfer');
  // Twice the gas of one transfer at today's fee: room for a fee rise and one replacement.
  const value = 2n * need - eth > need ? 2n * need - eth : need;
  const balance = s.amount ?? (await chain.tokenBalance(address));
  const decided = { all: all.length, open: open.length };
  await stepTx(em, c.env, sweepOwner(c, s, 'topup', chain.account, { to: address, value, gas: TOPUP_GAS }, balance, decided));
}

/** The transfer step: step the open transfer; else sign transfer(settlement wallet, balance) with the address's key. */
async function transfer(c: Ctx, s: ActiveSweep): Promise<void> {
  const { em, chain, log } = c;
  const address = getAddress(s.address);
  const account = chain.depositAccount(s.deposit_index);
  if (account.address !== address) {
    log.error(
      { sweep_id: s.id, address, deposit_index: s.deposit_index.toString() },
      'DEPOSIT_MNEMONIC does not derive this registered deposit address: the sweep waits',
    );
    return;
  }
  const { all, open } = await openAttempts(em, s.id, address);
  if (!open.length && all.some((t) => t.receipt_status === 'success')) return moveIfSettled(em, s, address, 'transfer', 'done'); // recorded by another sweeper
  const balance = open.length && s.amount !== null ? s.amount : await chain.tokenBalance(address);
  if (!open.length) {
    if (balance === 0n) return moveIfSettled(em, s, address, 'transfer', 'done');
    const fees = capFees(await estimateFees(chain), chain.settings.feeCap).fees;
    if ((await chain.client.getBalance({ address })) < maxCostWei(TRANSFER_GAS, fees, 0n))
      return moveIfSettled(em, s, address, 'transfer', 'topup');
  }
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [chain.settlementAddress, balance] });
  await stepTx(em, c.env, sweepOwner(c, s, 'transfer', account, { to: chain.token, data, value: 0n, gas: TRANSFER_GAS }, balance));
}

/** One sweeper tick: opens the sweeps that are due, then moves every open sweep by one step. Safe in two processes at once. */
export async function stepSweeps(em: Em, chain: Chain, log: Logger): Promise<SweepTick> {
  const { chainId, sweepMinMicros } = chain.settings;
  const repo = repos(em).custodial;
  const tick: SweepTick = { opened: 0, advanced: 0 };
  for (const cand of await repo.sweepCandidates(chainId, OPEN_PER_TICK)) {
    const balance = await chain.tokenBalance(getAddress(cand.address));
    if (balance < sweepMinMicros) {
      await repo.markSwept(cand.address, cand.credits); // dust: waits for the next credit
      continue;
    }
    const opened = await em.transactional(async (tx) => {
      const r = repos(tx).custodial;
      if (!(await r.openSweep(randomUUID(), chainId, cand.address))) return false;
      await r.markSwept(cand.address, cand.credits);
      return true;
    });
    if (opened) tick.opened++;
  }
  const c: Ctx = { em, chain, log, env: { chain, policy: policyOf(chain), log } };
  for (const s of await repo.activeSweeps(chainId)) {
    try {
      await (s.status === 'topup' ? topUp : transfer)(c, s);
      tick.advanced++;
    } catch (err) {
      if (isDatabaseError(err)) throw err;
      log.warn(
        { sweep_id: s.id, address: s.address, reason: shortReason(err) },
        'chain node error while sweeping; retried on the next tick',
      );
    }
  }
  return tick;
}
