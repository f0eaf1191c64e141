// The chain as an operator sees it (docs/settlement.md, "Reconciliation and chain status"): read by the workers'
// scheduled `reconcile-chain` job only (CHAIN_RECONCILE_EVERY_MS), stored in chain_observations, and served from
// there by every API process (GET /v1/admin/status `chain`, the crfq_chain_* and settlement_* gauges): the RPC
// cost of watching the chain does not grow with API processes or scrapes. One run reads the head, the listener's
// cursor (its lag behind the confirmed head), the settlement wallet's nonce gap, and the reconciliation (every
// deposit address's balance, by Multicall3 where deployed: balances.ts). A run whose node fails stores the error beside the last
// good figures (`error`, `error_at_ms`), with URLs reduced to their host.
import type { Address } from 'viem';
import type { Em } from '../../../db/orm.js';
import { shortReason, type Chain } from '../../../adapters/chain/chain.js';
import { nonceGap } from './chain-tx/gap.js';
import { DEPOSIT_CURSOR } from './deposits.js';
import { reconcile, type Reconciliation } from './reconcile.js';
import { repos } from '../../../db/repos.js';

export interface ChainObservation {
  chain_id: number;
  observed_at_ms: number;
  head: string;
  confirmed_head: string;
  /** The deposit listener's cursor (null: none yet, e.g. no deposit address handed out). */
  listener_cursor: string | null;
  /** Confirmed blocks the listener has not read yet (null: no cursor). */
  listener_lag_blocks: number | null;
  /** Nonces missing below the settlement wallet's lowest stored open one (docs/operations.md, "A nonce gap"). */
  nonce_gap: number;
  reconciliation: Reconciliation;
  /** The last run's failure, when it failed (the figures above are the last good ones). */
  error?: string;
  error_at_ms?: number;
}

/** Reads the chain once and stores what it saw; on a node error stores the error beside the last good figures. */
export async function observeChain(em: Em, chain: Chain, cold?: { address: Address }): Promise<{ ok: boolean; error?: string }> {
  const repo = repos(em).chainObservations;
  const { chainId, confirmations } = chain.settings;
  try {
    const head = await chain.client.getBlockNumber({ cacheTime: 0 });
    const confirmed = head - BigInt(confirmations) + 1n;
    const cursor = await repos(em).custodial.cursor(chainId, DEPOSIT_CURSOR, false);
    const gap = await nonceGap(em, chain);
    const reconciliation = await reconcile(chain, repos(em).ledgerCheck, cold);
    const lag = cursor ? confirmed - cursor.block_number : null;
    const seen: ChainObservation = {
      chain_id: chainId,
      observed_at_ms: Date.now(),
      head: head.toString(),
      confirmed_head: confirmed.toString(),
      listener_cursor: cursor ? cursor.block_number.toString() : null,
      listener_lag_blocks: lag === null ? null : Number(lag > 0n ? lag : 0n),
      nonce_gap: gap ? Number(gap.below - gap.from) : 0,
      reconciliation,
    };
    await repo.store(chainId, seen);
    return { ok: true };
  } catch (err) {
    if (typeof (err as { code?: unknown }).code === 'string') throw err; // the database's: the job fails
    const error = shortReason(err);
    const last = (await repo.latest())?.figures as ChainObservation | undefined;
    if (last) await repo.store(chainId, { ...last, error, error_at_ms: Date.now() });
    return { ok: false, error };
  }
}

/** The stored observation, if the workers made one. */
export async function storedChainObservation(em: Em): Promise<{ observation: ChainObservation; observedAtMs: number } | undefined> {
  const row = await repos(em).chainObservations.latest();
  return row && { observation: row.figures as ChainObservation, observedAtMs: row.observed_at_ms };
}

/** The database's side of the chain status: parked deposit sweeps and pending withdrawals by reason. */
export async function chainBacklog(
  em: Em,
): Promise<{ parkedSweeps: number; withdrawalsWaiting: Array<{ reason: string | null; count: number }> }> {
  const repo = repos(em).chainObservations;
  return { parkedSweeps: await repo.parkedSweeps(), withdrawalsWaiting: await repo.withdrawalsWaiting() };
}
