// Idempotency keys (src/domain/idempotency.ts). The statements keep PostgreSQL's clock (now()) for the
// retention, so every process agrees on it; each runs in the caller's transaction.
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
}

export class IdempotencyRepository {
  constructor(private readonly db: Db) {}

  /**
   * Inserts the key (in progress; true when this call inserted it) in ONE statement with a bound on its wait for a concurrent holder's uncommitted key row: the
   * transaction's lock_timeout is `waitMs` while the insert waits, and back to what it was once the key is
   * inserted (RETURNING runs after the wait). When the key exists (nothing inserted), the bound stays set:
   * the caller reads the key under it and then calls lockTimeout(null). A key is in progress only inside
   * its claiming transaction; `lease_expires_at` is written because the column's CHECK (migration
   * _exactly_once) wants it on an in-progress row, and nothing reads it.
   */
  async insertWaiting(k: KeyAt, fingerprint: string, waitMs: number): Promise<boolean> {
    const { rows } = await sql<{ key: string }>`
      with prev as (select current_setting('lock_timeout') as v),
           bound as (select set_config('lock_timeout', ${String(Math.trunc(waitMs))}, true) as v from prev)
      insert into idempotency_keys (scope, operation, key, fingerprint, state, lease_expires_at)
      select ${k.scope}, ${k.operation}, ${k.key}, ${fingerprint}, 'in_progress', now() from bound
      on conflict do nothing
      returning key, set_config('lock_timeout', (select v from prev), true) as restored`.execute(this.db);
    return rows.length > 0;
  }

  /** The key as committed. */
  async read(k: KeyAt): Promise<IdempotencyKeyRow | undefined> {
    const { rows } = await sql<IdempotencyKeyRow>`
      select fingerprint, state, response_status, response_body, resource_id::text as resource_id
        from idempotency_keys where scope = ${k.scope} and operation = ${k.operation} and key = ${k.key}`.execute(this.db);
    return rows[0];
  }

  /** Stores the outcome: done, with its status, body (json, byte for byte) and resource. */
  async store(k: KeyAt, status: number, bodyJson: string, resourceId: string | null): Promise<void> {
    await sql`update idempotency_keys set state = 'done', response_status = ${status}, response_body = ${bodyJson}::json,
        resource_id = ${resourceId}::uuid, lease_expires_at = null, completed_at = now()
      where scope = ${k.scope} and operation = ${k.operation} and key = ${k.key}`.execute(this.db);
  }

  /**
   * Deletes keys older than the retention, except done keys of an operation still pending; returns how
   * many. A committed in-progress key can only be a leftover of an earlier version's two-phase claim.
   */
  async prune(retentionMs: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      with gone as (
        delete from idempotency_keys k
         where k.created_at < now() - (${retentionMs} * interval '1 millisecond')
           and (k.state = 'in_progress' or not exists (select 1 from operations o where o.id = k.resource_id and o.status = 'pending'))
         returning 1)
      select count(*)::int as n from gone`.execute(this.db);
    return rows[0]?.n ?? 0;
  }

  /** Bounds (ms) how long this transaction waits for a row lock; `null` restores the default. */
  async lockTimeout(ms: number | null): Promise<void> {
    await (ms === null ? sql`set local lock_timeout to default` : sql.raw(`set local lock_timeout = ${Math.trunc(ms)}`)).execute(this.db);
  }
}
