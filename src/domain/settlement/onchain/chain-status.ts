// The chain as GET /v1/admin/status shows it (`chain`, and the `chain` component; docs/settlement.md, "Reconciliation
// and chain status"): the workers' last stored observation (observe-chain.ts; an API process never reads the chain
// for it) and the database's backlog (parked sweeps, withdrawals waiting by reason). `failed` when there is no
// observation, the last read failed, or the chain holds less than users can withdraw; `degraded` when the figures
// are stale or something waits for an operator (a nonce gap, a parked sweep, uncredited funds, a withdrawal waiting
// for funds, gas, the token, the signer, the fee cap or a review).
import type { Em } from '../../../db/orm.js';
import type { ComponentHealth } from '../../status.js';
import { chainBacklog, storedChainObservation } from './observe-chain.js';

export interface ChainStatusView {
  state: 'ok' | 'degraded' | 'failed';
  detail: string | null;
  observed_at_ms: number | null;
  head: string | null;
  listener_lag_blocks: number | null;
  settlement_wallet_usdc_micros: string | null;
  settlement_wallet_gas_wei: string | null;
  cold_wallet_micros: string | null;
  uncredited_micros: string | null;
  surplus_micros: string | null;
  deficit: boolean;
  nonce_gap: number;
  parked_sweeps: number;
  withdrawals_waiting: Array<{ reason: string; count: number }>;
  error: string | null;
}

/** Wait reasons that need an operator (the others resolve by themselves: mempool, queued, confirmations...). */
const OPERATOR_REASONS = new Set([
  'hot_wallet_funds',
  'gas',
  'token_paused',
  'hot_wallet_blocked',
  'signer',
  'fee_cap',
  'nonce_gap',
  'needs_review',
]);

export async function chainStatus(em: Em, opts: { nowMs: number; staleAfterMs: number }): Promise<ChainStatusView> {
  const backlog = await chainBacklog(em);
  const stored = await storedChainObservation(em);
  const waiting = backlog.withdrawalsWaiting.map((w) => ({ reason: w.reason ?? 'none', count: w.count }));
  const o = stored?.observation;
  const r = o?.reconciliation;
  const problems: string[] = [];
  let state: ChainStatusView['state'] = 'ok';
  const degrade = (why: string) => {
    problems.push(why);
    if (state === 'ok') state = 'degraded';
  };
  if (!o) {
    state = 'failed';
    problems.push('no chain observation yet: is the workers role running (reconcile-chain)?');
  } else {
    if (o.error) {
      state = 'failed';
      problems.push(`the last chain read failed: ${o.error}`);
    }
    if (r?.deficit) {
      state = 'failed';
      problems.push(`DEFICIT: the chain holds less than users can withdraw (surplus ${r.surplus_micros} micros)`);
    }
    if (opts.nowMs - o.observed_at_ms > opts.staleAfterMs) degrade(`figures ${Math.round((opts.nowMs - o.observed_at_ms) / 1000)} s old`);
    if (o.nonce_gap > 0) degrade(`nonce gap of ${o.nonce_gap}: run npm run chain:fill-nonce-gap`);
    if (r && BigInt(r.uncredited_micros ?? '0') > 0n) degrade(`${r.uncredited_micros} micros in deposit addresses credited to no one`);
  }
  if (backlog.parkedSweeps > 0) degrade(`${backlog.parkedSweeps} deposit address(es) parked`);
  for (const w of waiting) if (OPERATOR_REASONS.has(w.reason)) degrade(`${w.count} withdrawal(s) waiting: ${w.reason}`);
  return {
    state,
    detail: problems.length ? problems.join('; ').slice(0, 600) : null,
    observed_at_ms: o?.observed_at_ms ?? null,
    head: o?.head ?? null,
    listener_lag_blocks: o?.listener_lag_blocks ?? null,
    settlement_wallet_usdc_micros: r?.settlement_wallet_micros ?? null,
    settlement_wallet_gas_wei: r?.gas_wei ?? null,
    cold_wallet_micros: r?.cold_wallet_micros ?? null,
    uncredited_micros: r?.uncredited_micros ?? null,
    surplus_micros: r?.surplus_micros ?? null,
    deficit: r?.deficit ?? false,
    nonce_gap: o?.nonce_gap ?? 0,
    parked_sweeps: backlog.parkedSweeps,
    withdrawals_waiting: waiting,
    error: o?.error ?? null,
  };
}

/** The `chain` component of the status (crfq_component_up{kind="chain"}). */
export const chainHealth = (s: ChainStatusView): ComponentHealth => ({ state: s.state, ...(s.detail ? { detail: s.detail } : {}) });
