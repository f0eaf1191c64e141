// The chain side of one deposit or withdrawal, exactly once on the chain (docs/settlement.md): the settlement
// job steps the operation's chain transaction (chain-tx/drive.ts with its operation owner) until its outcome is
// recorded, it waits for something that takes long (funds, gas, the fee cap, a paused token: the job then ends
// and the outbox relay hands the operation back every CHAIN_WAIT_RECHECK_MS), or it goes to an operator's review.
// The ledger posting follows in the settlement worker's transaction (src/domain/money/operations.ts), which
// reads the recorded outcome through the adapter. Node errors never fail an operation: they are retried.
import type { Em } from '../../../db/orm.js';
import type { Logger } from '../../../logger.js';
import { shortReason, type Chain } from '../../../adapters/chain/chain.js';
import type { ChainSigner, TxEnv } from './chain-tx/drive.js';
import { stepTx } from './chain-tx/drive.js';
import { operationOwner } from './chain-tx/operation-owner.js';
import type { Policy, WaitReason } from './chain-tx/plan.js';
import { repos } from '../../../db/repos.js';

export interface AdvanceOptions {
  log: Logger;
  signal?: AbortSignal;
}

/** What `advance` left the operation as: recorded (the ledger can post it), waiting, deferred (a long wait), or in review. */
export type AdvanceResult = 'recorded' | 'waiting' | 'deferred' | 'needs_review';

/** Waits that can last long: the job ends and the operation is looked at again every CHAIN_WAIT_RECHECK_MS. */
const LONG_WAITS: ReadonlySet<WaitReason> = new Set(['fee_cap', 'hot_wallet_funds', 'gas', 'token_paused', 'hot_wallet_blocked', 'signer']);

/** A waiting settlement polls after CHAIN_POLL_MS, then 1.5 times longer each time it still waits, up to this many times CHAIN_POLL_MS. */
export const POLL_BACKOFF_MAX = 8;

/** The pause before a waiting settlement's next look at the chain, after `waits` looks that found it still waiting. */
export const pollDelay = (pollMs: number, waits: number) => Math.round(Math.min(pollMs * 1.5 ** waits, pollMs * POLL_BACKOFF_MAX));

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** The chain-transaction policy of this deployment's settings. */
export const policyOf = (chain: Chain): Policy => ({
  confirmations: chain.settings.confirmations,
  replaceAfterMs: chain.settings.replaceAfterMs,
  receiptReviewAfterMs: chain.settings.receiptReviewAfterMs,
  cap: chain.settings.feeCap,
});

/**
 * Steps one operation's transaction until its outcome is recorded (or the operation is no longer pending, waits
 * long, goes to review, or `signal` aborts: then it returns early). An operation in review gets one look (a
 * receipt that appeared settles it). A waiting settlement looks again after CHAIN_POLL_MS, backing off to
 * POLL_BACKOFF_MAX times it (pollDelay: no second-by-second polling while a transaction gathers its confirmations).
 * Node errors are logged and retried the same way; database errors
 * are thrown (the job is retried).
 */
export async function advanceOnchain(
  em: Em,
  chain: Chain,
  signer: ChainSigner,
  opId: string,
  opts: AdvanceOptions,
): Promise<AdvanceResult> {
  const repo = repos(em).chain;
  const env: TxEnv = { chain, policy: policyOf(chain), log: opts.log };
  let nodeDown = 0;
  let waits = 0;
  while (!opts.signal?.aborted) {
    const op = await repo.operation(opId, false);
    if (!op || op.status !== 'pending') return 'recorded';
    if (op.pending_reason === 'review') return 'waiting'; // held for an operator's approval: nothing is signed
    if ((await repo.outcomes([opId])).length || (await repo.resolutions([opId])).length) return 'recorded';
    const inReview = op.pending_reason === 'needs_review';
    try {
      const step = await stepTx(em, env, operationOwner(chain, signer, op, opts.log));
      nodeDown = 0;
      if (step.do === 'record' || step.do === 'fail') return 'recorded';
      if (step.do === 'review' || inReview) return 'needs_review';
      if (step.do === 'wait' && LONG_WAITS.has(step.reason)) {
        await repo.deferOutbox(opId, chain.settings.waitRecheckMs);
        return 'deferred';
      }
      if (step.do === 'sign' || step.do === 'replace') {
        waits = 0;
        continue;
      }
    } catch (err) {
      if (isDatabaseError(err)) throw err;
      if (nodeDown++ % 20 === 0)
        opts.log.warn({ operation_id: opId, reason: shortReason(err) }, 'chain node error while settling; retrying');
      if (inReview) return 'needs_review';
    }
    await sleep(pollDelay(chain.settings.pollMs, waits++), opts.signal);
  }
  return 'waiting';
}

/** Errors of viem are the node's; anything carrying an SQLSTATE (or a failpoint) is the database's. */
export function isDatabaseError(err: unknown): boolean {
  const e = err as { code?: unknown; name?: string };
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}
