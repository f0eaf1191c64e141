// Idempotency keys (src/domain/idempotency.ts). The statements keep PostgreSQL's clock (now()) for leases
// and retention, so every process agrees on them; each runs in the caller's transaction.
import { sql } from 'kysely';
import type { Db } from '../schema.js';

export interface KeyAt {
  scope: string;
  operation: string;
  key: string;
}

export interface IdempotencyKeyRow {
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: unknown;
  resource_id: string | null;
  lease_left_ms: string | number;
}

const lease = (leaseMs: number) => sql<string>`now() + (${leaseMs} * interval '1 millisecond')`;

export class IdempotencyRepository {
  constructor(private readonly db: Db) {}

  /**
   * Inserts the key (in progress, with a lease; true when this call inserted it) in ONE statement with a bound on its wait for a concurrent holder's uncommitted key row: the
   * transaction's lock_timeout is `waitMs` while the insert waits, and back to what it was once the key is
   * inserted (RETURNING runs after the wait). When the key exists (nothing inserted), the bound stays set:
   * the caller reads the key under it and then calls lockTimeout(null).
   */
  async insertWaiting(k: KeyAt, fingerprint: string, leaseMs: number, waitMs: number): Promise<boolean> {
    const { rows } = await sql<{ key: string }>`
      with prev as (select current_setting('lock_timeout') as v),
           bound as (select set_config('lock_timeout', ${String(Math.trunc(waitMs))}, true) as v from prev)
      insert into idempotency_keys (scope, operation, key, fingerprint, state, lease_expires_at)
      select ${k.scope}, ${k.operation}, ${k.key}, ${fingerprint}, 'in_progress', ${lease(leaseMs)} from bound
      on conflict do nothing
      returning key, set_config('lock_timeout', (select v from prev), true) as restored`.execute(this.db);
    return rows.length > 0;
  }

  /** The key with how much of its lease is left (ms, 0 when none). */
  async read(k: KeyAt, forUpdate: boolean): Promise<IdempotencyKeyRow | undefined> {
    const lock = forUpdate ? sql` for update` : sql``;
    const { rows } = await sql<IdempotencyKeyRow>`
      select fingerprint, state, response_status, response_body, resource_id::text as resource_id,
             coalesce(greatest(0, ceil(extract(epoch from lease_expires_at - now()) * 1000)), 0)::bigint as lease_left_ms
        from idempotency_keys where scope = ${k.scope} and operation = ${k.operation} and key = ${k.key}${lock}`.execute(this.db);
    return rows[0];
  }

  /** Renews the lease of a key this transaction holds. */
  async renewLease(k: KeyAt, leaseMs: number): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ lease_expires_at: lease(leaseMs) })
      .where('scope', '=', k.scope)
      .where('operation', '=', k.operation)
      .where('key', '=', k.key)
      .execute();
  }

  /** Stores the outcome: done, with its status, body (json, byte for byte) and resource. */
  async store(k: KeyAt, status: number, bodyJson: string, resourceId: string | null): Promise<void> {
    await sql`update idempotency_keys set state = 'done', response_status = ${status}, response_body = ${bodyJson}::json,
        resource_id = ${resourceId}::uuid, lease_expires_at = null, completed_at = now()
      where scope = ${k.scope} and operation = ${k.operation} and key = ${k.key}`.execute(this.db);
  }

  /** Deletes done keys older than the retention, except those of an operation still pending; returns how many. */
  async prune(retentionMs: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      with gone as (
        delete from idempotency_keys k
         where k.created_at < now() - (${retentionMs} * interval '1 millisecond') and k.state = 'done'
           and not exists (select 1 from operations o where o.id = k.resource_id and o.status = 'pending')
         returning 1)
      select count(*)::int as n from gone`.execute(this.db);
    return rows[0]?.n ?? 0;
  }

  /** Bounds (ms) how long this transaction waits for a row lock; `null` restores the default. */
  async lockTimeout(ms: number | null): Promise<void> {
    await (ms === null ? sql`set local lock_timeout to default` : sql.raw(`set local lock_timeout = ${Math.trunc(ms)}`)).execute(this.db);
  }
}

export const idempotencyRepository = (db: Db) => new IdempotencyRepository(db);
