// The cold wallet (docs/operations.md, "Custody"): USDC the settlement wallet holds above HOT_WALLET_MAX_MICROS
// (beyond every pending withdrawal) is moved to COLD_WALLET_ADDRESS, whose key the service never holds. One
// scheduled tick (workers/chain-deposits.worker.ts, job cold-sweep) steps the open sweep, or opens one:
//   - at most one sweep is open per chain (cold_sweeps_one_open_key), its amount fixed when it opens, its
//     transaction one of the chain-transaction module (chain-tx/drive.ts: stored before broadcast, replaced only
//     within the fee cap, recorded once): a sweep moves exactly its amount, once, or nothing;
//   - none opens while a withdrawal waits for funds (pending_reason hot_wallet_funds): the hot wallet is short,
//     so nothing in it is excess. The excess is what the wallet holds above the ceiling plus every pending
//     withdrawal not paid yet (held for review or not): what a withdrawal accepted now needs stays hot;
//   - before its signature the chain is asked again (preflight): a paused token or a blacklisted settlement wallet
//     waits, gas missing waits, and an excess that is gone since it opened (withdrawals arrived) cancels it with
//     nothing sent (the next tick opens one of the right size); a blacklisted cold wallet cancels it, logged;
//   - while it is signed and not recorded, its amount counts as in flight for every withdrawal's funds check
//     (ChainTxRepository.withdrawalsInFlight), so no withdrawal is signed against USDC on its way out.
import { randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, getAddress, type Address } from 'viem';
import type { Em } from '../../../db/orm.js';
import { type ColdSweepRow } from '../../../db/repositories/cold-sweep.repository.js';
import type { Logger } from '../../../logger.js';
import type { Chain } from '../../../adapters/chain/chain.js';
import { stepTx, type ChainSigner, type TxEnv, type TxOwner, type TxSpec } from './chain-tx/drive.js';
import type { Fees } from './chain-tx/fees.js';
import { gasCovered, TRANSFER_GAS } from './chain-tx/operation-owner.js';
import type { Preflight, Step } from './chain-tx/plan.js';
import { blacklisted, simulate, tokenPaused } from './chain-tx/token-checks.js';
import { policyOf } from './sender.js';
import { repos } from '../../../db/repos.js';

/** No sweep of less than this (or a tenth of the ceiling, if more): gas is not spent on dust. */
export const COLD_SWEEP_MIN_MICROS = 1_000_000n;

export interface ColdWallet {
  address: Address;
  /** HOT_WALLET_MAX_MICROS. */
  hotMaxMicros: bigint;
}

export interface ColdSweepTick {
  /** The sweep stepped (or opened and stepped), if any. */
  sweep_id?: string;
  amount_micros?: string;
  step?: Step['do'];
  /** Why none was opened. */
  idle?: 'below_ceiling' | 'withdrawals_wait_for_funds';
}

/** USDC micros above the ceiling and every unpaid pending withdrawal (0 or less: none). */
async function excessMicros(em: Em, chain: Chain, cold: ColdWallet): Promise<{ excess: bigint; waiting: number }> {
  const owed = await repos(em).coldSweep.owedWithdrawals();
  const hot = await chain.tokenBalance(chain.settlementAddress);
  return { excess: hot - owed.micros - cold.hotMaxMicros, waiting: owed.waitingForFunds };
}

const minSweep = (cold: ColdWallet) => (cold.hotMaxMicros / 10n > COLD_SWEEP_MIN_MICROS ? cold.hotMaxMicros / 10n : COLD_SWEEP_MIN_MICROS);

async function preflight(em: Em, chain: Chain, cold: ColdWallet, s: ColdSweepRow, spec: TxSpec, estimate: Fees): Promise<Preflight> {
  const to = getAddress(s.to_address);
  if (await tokenPaused(chain)) return { ok: false, wait: 'token_paused' };
  if (await blacklisted(chain, chain.settlementAddress)) return { ok: false, wait: 'hot_wallet_blocked' };
  if (await blacklisted(chain, to)) return { ok: false, fail: 'COLD_WALLET_BLACKLISTED' };
  const { excess, waiting } = await excessMicros(em, chain, cold);
  // Another in-flight transfer out of the wallet (a signed withdrawal) is in `owed` already.
  if (waiting > 0 || excess < s.amount) return { ok: false, fail: 'EXCESS_GONE' };
  if (!(await gasCovered(chain, em, spec, estimate))) return { ok: false, wait: 'gas' };
  const reverts = await simulate(chain, chain.settlementAddress, spec.to, spec.data, 0n);
  return reverts === null ? { ok: true } : { ok: false, fail: 'TRANSFER_WOULD_REVERT' };
}

/** The owner of a cold sweep's transaction (drive.ts): transfer(cold wallet, amount) from the settlement wallet. */
export function coldSweepOwner(chain: Chain, signer: ChainSigner, cold: ColdWallet, s: ColdSweepRow, log: Logger): TxOwner {
  const columns = { purpose: 'cold_sweep' as const, intentId: s.id };
  const fields = { cold_sweep_id: s.id, amount_micros: s.amount.toString(), to: s.to_address };
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(s.to_address), s.amount] });
  const spec: TxSpec = { to: chain.token, data, value: 0n, gas: TRANSFER_GAS };
  return {
    columns,
    signer,
    fields,
    afterSignFailpoint: 'coldSweep:afterSign',
    spec: () => spec,
    attempts: (em) => repos(em).chainTx.attempts(columns),
    async lockToSign(tx, seen) {
      const r = repos(tx);
      if ((await r.coldSweep.lock(s.id)) !== 'open') return null;
      const now = await r.chainTx.attempts(columns);
      if (now.length !== seen.length || now.some((t) => t.receipt_status)) return null; // another process moved first
      return { attempt: now.length };
    },
    preflight: (em, estimate) => preflight(em, chain, cold, s, spec, estimate),
    async onRecorded(em, hash, status) {
      await repos(em).coldSweep.finish(s.id, status === 'success' ? 'done' : 'reverted', { txHash: hash });
      (status === 'success' ? log.info : log.error).call(log, { ...fields, tx_hash: hash, outcome: status }, 'cold-wallet sweep finished');
    },
    async onWait(em, reason) {
      if (s.wait_reason === reason) return;
      await repos(em).coldSweep.setWaitReason(s.id, reason);
      s.wait_reason = reason;
    },
    async onReview(em) {
      if (s.wait_reason === 'needs_review') return;
      await repos(em).coldSweep.setWaitReason(s.id, 'needs_review');
      s.wait_reason = 'needs_review';
      log.error(
        fields,
        'cold-wallet sweep: its nonce is used but no receipt is served; no other sweep opens until it is recorded (check the chain)',
      );
    },
    // Only while no attempt exists (under the sweep's lock): a cancelled sweep was never signed.
    async onFail(em, code) {
      const cancelled = await em.transactional(async (tx) => {
        const r = repos(tx);
        if ((await r.coldSweep.lock(s.id)) !== 'open') return false;
        if ((await r.chainTx.attempts(columns)).length) return false;
        return r.coldSweep.finish(s.id, 'cancelled', { reason: code });
      });
      if (cancelled)
        (code === 'EXCESS_GONE' ? log.info : log.error).call(
          log,
          { ...fields, reason: code },
          'cold-wallet sweep cancelled before signing',
        );
    },
  };
}

/** One tick: steps the open sweep, or opens one for the excess and steps it. Safe in two processes at once. */
export async function stepColdSweep(em: Em, chain: Chain, signer: ChainSigner, cold: ColdWallet, log: Logger): Promise<ColdSweepTick> {
  const { chainId } = chain.settings;
  const repo = repos(em).coldSweep;
  let s = await repo.openSweep(chainId);
  if (!s) {
    const { excess, waiting } = await excessMicros(em, chain, cold);
    if (waiting > 0) return { idle: 'withdrawals_wait_for_funds' };
    if (excess < minSweep(cold)) return { idle: 'below_ceiling' };
    await repo.insert({ id: randomUUID(), chainId, to: cold.address, amount: excess });
    s = await repo.openSweep(chainId);
    if (!s) return { idle: 'below_ceiling' }; // opened and finished by another worker meanwhile
  }
  const env: TxEnv = { chain, policy: policyOf(chain), log };
  const step = await stepTx(em, env, coldSweepOwner(chain, signer, cold, s, log));
  return { sweep_id: s.id, amount_micros: s.amount.toString(), step: step.do };
}
