// Housekeeping of the identity tables (the housekeeping queue's scheduled job). Deletes in bounded batches
// so one run never holds long locks; each batch is an index range scan (Migration20261123020000_auth_prune).
//   sessions:      expired or revoked more than `graceMs` ago (until then a lookup still finds and refuses them)
//   wallet_nonces: used, or expired (a nonce is single-use and lives NONCE_TTL_SECONDS)
//   rate_limit_counters, ws_connection_slots: windows and leases long over (src/http/rate-limit-store.ts,
//                  src/ws/connection-slots.ts)
// Market-maker challenges are never stored: they live on their WebSocket connection and end with it.
import type { Em } from '../../db/orm.js';

export const PRUNE_BATCH = 5_000;
export const SESSION_PRUNE_GRACE_MS = 3_600_000;

export interface AuthPruneResult {
  sessions: number;
  walletNonces: number;
  /** Shared-limit leftovers (PostgreSQL-only deployment): finished rate-limit windows, expired WS slot leases. */
  limits: number;
}

async function deleteInBatches(em: Em, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await em.execute<Array<{ n: number }>>(sql, [...params, PRUNE_BATCH]);
    const n = rows[0]?.n ?? 0;
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}

export async function pruneExpiredAuth(em: Em, graceMs = SESSION_PRUNE_GRACE_MS): Promise<AuthPruneResult> {
  const sessions = await deleteInBatches(
    em,
    `with doomed as (
       select id from sessions where expires_at < now() - (? * interval '1 millisecond')
       union
       select id from sessions where revoked_at < now() - (? * interval '1 millisecond')
       limit ?
     ), gone as (delete from sessions s using doomed d where s.id = d.id returning 1)
     select count(*)::int as n from gone`,
    [graceMs, graceMs],
  );
  const walletNonces = await deleteInBatches(
    em,
    `with doomed as (
       select nonce from wallet_nonces where used_at is not null
       union
       select nonce from wallet_nonces where expires_at < now()
       limit ?
     ), gone as (delete from wallet_nonces w using doomed d where w.nonce = d.nonce returning 1)
     select count(*)::int as n from gone`,
    [],
  );
  const limits = await deleteInBatches(
    em,
    `with doomed as (select key from rate_limit_counters where reset_at < now() - interval '1 hour' limit ?),
     gone as (delete from rate_limit_counters r using doomed d where r.key = d.key returning 1),
     slots as (delete from ws_connection_slots where expires_at < now() - interval '1 hour' returning 1)
     select ((select count(*) from gone) + (select count(*) from slots))::int as n`,
    [],
  );
  return { sessions, walletNonces, limits };
}
