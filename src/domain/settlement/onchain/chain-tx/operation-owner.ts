// A deposit or withdrawal as the owner of its chain transaction (drive.ts): the settlement wallet sends
// transfer(destination, amount) for a withdrawal and transferFrom(wallet, itself, amount) for a pull deposit. Before
// the first signature the chain is asked what it would do (docs/settlement.md, "Wait, don't fail"):
//   withdrawal: a blacklisted destination fails at once, with no transaction and the amount back in available
//     (DESTINATION_BLACKLISTED); a paused token (token_paused), a blacklisted settlement wallet
//     (hot_wallet_blocked), too little USDC in the settlement wallet for it and the withdrawals already in flight
//     (hot_wallet_funds), or too little gas for it and every open transaction of the wallet, L1 data fee included
//     (gas) make it wait, unsent; a dry run that reverts for another reason (e.g. a destination the token refuses)
//     fails it at once with no transaction (TRANSFER_WOULD_REVERT), the amount back in available;
//   pull deposit: a blacklisted wallet (WALLET_BLACKLISTED), a wallet that no longer covers it (BALANCE_TOO_LOW,
//     ALLOWANCE_TOO_LOW) or a dry run that reverts (SETTLEMENT_FAILED) fail it at once with nothing taken; a paused
//     token, a blacklisted settlement wallet or missing gas make it wait.
// Its wait reason is the operation's pending_reason; a review is needs_review (an operator resolves it).
import { encodeFunctionData, erc20Abi, getAddress } from 'viem';
import type { Em } from '../../../../db/orm.js';
import { type OperationForChain } from '../../../../db/repositories/chain.repository.js';
import type { Logger } from '../../../../logger.js';
import type { Chain } from '../../../../adapters/chain/chain.js';
import { evidenceFields, type NonceEvidence } from '../nonce-evidence.js';
import type { ChainSigner, TxOwner, TxSpec } from './drive.js';
import { capFees, maxCostWei, type Fees } from './fees.js';
import { l1FeeWei } from './l1-fee.js';
import type { Preflight } from './plan.js';
import { blacklisted, simulate, tokenPaused } from './token-checks.js';
import { repos } from '../../../../db/repos.js';

/** Gas limit of a token transfer or transferFrom (USDC on Base uses ~40-65k; unused gas is not charged). */
export const TRANSFER_GAS = 150_000n;

function specOf(op: OperationForChain, chain: Chain): TxSpec {
  const data =
    op.kind === 'withdraw'
      ? encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(op.destination_address!), op.amount] })
      : encodeFunctionData({
          abi: erc20Abi,
          functionName: 'transferFrom',
          args: [getAddress(op.wallet_address), chain.settlementAddress, op.amount],
        });
  return { to: chain.token, data, value: 0n, gas: TRANSFER_GAS };
}

/** The settlement wallet can pay this transaction's gas on top of every open one of its own (wei, L1 fee included). */
export async function gasCovered(chain: Chain, em: Em, spec: TxSpec, estimate: Fees): Promise<boolean> {
  const wallet = chain.settlementAddress;
  const [eth, count] = await Promise.all([
    chain.client.getBalance({ address: wallet }),
    chain.client.getTransactionCount({ address: wallet }),
  ]);
  const open = await repos(em).chainTx.openCostWei(chain.settings.chainId, wallet, BigInt(count));
  const fees = capFees(estimate, chain.settings.feeCap).fees;
  return eth >= open + maxCostWei(spec.gas, fees, await l1FeeWei(chain, wallet, spec));
}

async function withdrawalPreflight(chain: Chain, em: Em, op: OperationForChain, estimate: Fees): Promise<Preflight> {
  const wallet = chain.settlementAddress;
  if (await blacklisted(chain, getAddress(op.destination_address!))) return { ok: false, fail: 'DESTINATION_BLACKLISTED' };
  if (await tokenPaused(chain)) return { ok: false, wait: 'token_paused' };
  if (await blacklisted(chain, wallet)) return { ok: false, wait: 'hot_wallet_blocked' };
  const inFlight = await repos(em).chainTx.withdrawalsInFlight(op.id);
  if ((await chain.tokenBalance(wallet)) - inFlight < op.amount) return { ok: false, wait: 'hot_wallet_funds' };
  const spec = specOf(op, chain);
  if (!(await gasCovered(chain, em, spec, estimate))) return { ok: false, wait: 'gas' };
  const reverts = await simulate(chain, wallet, spec.to, spec.data, 0n);
  if (reverts === null) return { ok: true };
  // A race with the checks above waits; any other revert is the transfer itself (e.g. a destination the token
  // refuses): it fails with no transaction, the amount back in available.
  if (/paused/i.test(reverts)) return { ok: false, wait: 'token_paused' };
  if (/exceeds balance|insufficient/i.test(reverts)) return { ok: false, wait: 'hot_wallet_funds' };
  return { ok: false, fail: 'TRANSFER_WOULD_REVERT' };
}

async function depositPreflight(chain: Chain, em: Em, op: OperationForChain, estimate: Fees): Promise<Preflight> {
  const from = getAddress(op.wallet_address);
  if (await tokenPaused(chain)) return { ok: false, wait: 'token_paused' };
  if (await blacklisted(chain, from)) return { ok: false, fail: 'WALLET_BLACKLISTED' };
  if (await blacklisted(chain, chain.settlementAddress)) return { ok: false, wait: 'hot_wallet_blocked' };
  if ((await chain.tokenBalance(from)) < op.amount) return { ok: false, fail: 'BALANCE_TOO_LOW' };
  if ((await chain.allowance(from, chain.settlementAddress)) < op.amount) return { ok: false, fail: 'ALLOWANCE_TOO_LOW' };
  const spec = specOf(op, chain);
  if (!(await gasCovered(chain, em, spec, estimate))) return { ok: false, wait: 'gas' };
  if ((await simulate(chain, chain.settlementAddress, spec.to, spec.data, 0n)) !== null) return { ok: false, fail: 'SETTLEMENT_FAILED' };
  return { ok: true };
}

export function operationOwner(chain: Chain, signer: ChainSigner, op: OperationForChain, log: Logger): TxOwner {
  const fields = { operation_id: op.id, kind: op.kind };
  const columns = { purpose: 'operation' as const, operationId: op.id };
  return {
    columns,
    signer,
    fields,
    spec: () => specOf(op, chain),
    attempts: (em) => repos(em).chainTx.attempts(columns),
    async lockToSign(tx, seen) {
      const r = repos(tx);
      const locked = await r.chain.operation(op.id, true);
      // Not while an operator must decide: a withdrawal held for review (approve clears it), or one in review on chain.
      if (!locked || locked.status !== 'pending' || locked.pending_reason === 'needs_review' || locked.pending_reason === 'review')
        return null;
      if ((await r.chain.resolutions([op.id])).length) return null; // failed before any signature, or resolved by an operator
      const now = await r.chainTx.attempts(columns);
      if (now.length !== seen.length || now.some((t) => t.receipt_status)) return null; // another process moved first
      return { attempt: now.length };
    },
    preflight: (em, estimate) => (op.kind === 'withdraw' ? withdrawalPreflight : depositPreflight)(chain, em, op, estimate),
    async onWait(em, reason) {
      if (op.pending_reason === reason) return;
      await repos(em).chain.setPendingReason(op.id, reason);
      if (reason === 'hot_wallet_blocked') log.error({ ...fields, reason }, 'a deposit or withdrawal cannot be sent; an operator must act');
      op.pending_reason = reason;
    },
    async onReview(em, evidence: NonceEvidence | null) {
      const repo = repos(em).chain;
      if (op.pending_reason !== 'needs_review') {
        await repo.setPendingReason(op.id, 'needs_review');
        log.error(
          { ...fields, ...(evidence ? evidenceFields(evidence) : {}) },
          "settlement needs an operator: the nonce is used but this operation's transaction cannot be proven mined; check the chain, then POST /v1/admin/operations/{operation_id}/resolve (docs/operations.md)",
        );
        op.pending_reason = 'needs_review';
      }
      await repo.deferOutbox(op.id, chain.settings.reviewRecheckMs);
    },
    // Under the operation's lock, and only while no attempt exists: a signature (lockToSign) takes the same lock
    // and refuses once this resolution exists, so a refused operation can never also be paid.
    async onFail(em, code) {
      const failed = await em.transactional(async (tx) => {
        const r = repos(tx);
        const locked = await r.chain.operation(op.id, true);
        if (!locked || locked.status !== 'pending' || (await r.chainTx.attempts(columns)).length) return false;
        return r.chain.insertResolution({
          operationId: op.id,
          outcome: 'failed',
          txHash: null,
          reason: code,
          operator: 'service',
          failureCode: code,
        });
      });
      if (failed)
        log.warn({ ...fields, failure_code: code }, 'the chain would refuse this deposit or withdrawal: it fails with no transaction sent');
    },
  };
}
