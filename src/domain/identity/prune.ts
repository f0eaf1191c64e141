// Housekeeping of the identity tables (the housekeeping queue's scheduled job). Deletes in bounded batches
// so one run never holds long locks; each batch is an index range scan (Migration20261123020000_auth_prune).
//   sessions:      expired or revoked more than `graceMs` ago (until then a lookup still finds and refuses them)
//   wallet_nonces: used, or expired (a nonce is single-use and lives NONCE_TTL_SECONDS)
//   rate_limit_counters, ws_connection_slots: windows and leases long over (src/http/rate-limit-store.ts,
//                  src/ws/connection-slots.ts)
// Market-maker challenges are never stored: they live on their WebSocket connection and end with it.
import type { Em } from '../../db/orm.js';
import { repos } from '../../db/repos.js';

export const PRUNE_BATCH = 5_000;
export const SESSION_PRUNE_GRACE_MS = 3_600_000;

export interface AuthPruneResult {
  sessions: number;
  walletNonces: number;
  /** Shared-limit leftovers (PostgreSQL-only deployment): finished rate-limit windows, expired WS slot leases. */
  limits: number;
}

async function deleteInBatches(deleteBatch: (batch: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteBatch(PRUNE_BATCH);
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}

export async function pruneExpiredAuth(em: Em, graceMs = SESSION_PRUNE_GRACE_MS): Promise<AuthPruneResult> {
  const repo = repos(em).identity;
  const sessions = await deleteInBatches((batch) => repo.pruneSessionsBatch(graceMs, batch));
  const walletNonces = await deleteInBatches((batch) => repo.pruneNoncesBatch(batch));
  const limits = await deleteInBatches((batch) => repo.pruneLimitsBatch(batch));
  return { sessions, walletNonces, limits };
}
