// Limits shared by the API processes of the PostgreSQL-only deployment (Migration20261123030000_shared_limits):
// the rate-limit counters (src/http/rate-limit-store.ts) and the market-maker WebSocket connection slots
// (src/ws/connection-slots.ts). Both callers run these outside any request transaction, on the pool.
import { sql } from 'kysely';
import type { Db } from '../schema.js';

export class SharedLimitsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Counts one request for `key` in its fixed window (one UPSERT): a window that has ended starts again at
   * 1 with a new reset time. Returns the hits in the window and when it ends.
   */
  async incrementCounter(key: string, windowMs: number): Promise<{ hits: number; resetAt: Date }> {
    const { rows } = await sql<{ hits: number; reset_at: Date | string }>`
      insert into rate_limit_counters as c (key, hits, reset_at) values (${key}, 1, now() + (${windowMs} * interval '1 millisecond'))
       on conflict (key) do update set
         hits = case when c.reset_at <= now() then 1 else c.hits + 1 end,
         reset_at = case when c.reset_at <= now() then excluded.reset_at else c.reset_at end
       returning hits, reset_at`.execute(this.db);
    return { hits: Number(rows[0]!.hits), resetAt: new Date(rows[0]!.reset_at) };
  }

  async decrementCounter(key: string): Promise<void> {
    await this.db
      .updateTable('rate_limit_counters')
      .set((eb) => ({ hits: sql<number>`greatest(${eb.ref('hits')} - 1, 0)` }))
      .where('key', '=', key)
      .execute();
  }

  async deleteCounter(key: string): Promise<void> {
    await this.db.deleteFrom('rate_limit_counters').where('key', '=', key).execute();
  }

  /**
   * Takes a connection slot for `ip` when it holds fewer than `max` live ones (expired leases are deleted
   * first). Must run inside a transaction: the advisory lock per IP, held until it commits, makes the
   * count and the insert one step across processes. True when the slot was taken.
   */
  async takeSlot(s: { ip: string; holder: string; process: string; ttlMs: number; max: number }): Promise<boolean> {
    await sql`select pg_advisory_xact_lock(hashtext('ws-slots:' || ${s.ip}::text))`.execute(this.db);
    await this.db
      .deleteFrom('ws_connection_slots')
      .where('ip', '=', s.ip)
      .where('expires_at', '<', sql<string>`now()`)
      .execute();
    const { rows } = await sql<{ n: number }>`
      insert into ws_connection_slots (ip, holder, process, expires_at)
      select ${s.ip}, ${s.holder}, ${s.process}, now() + (${s.ttlMs} * interval '1 millisecond')
       where (select count(*) from ws_connection_slots where ip = ${s.ip}) < ${s.max}
      returning 1 as n`.execute(this.db);
    return rows.length === 1;
  }

  /** Extends every lease of `process` to now + ttlMs (its living connections). */
  async renewSlots(process: string, ttlMs: number): Promise<void> {
    await this.db
      .updateTable('ws_connection_slots')
      .set({ expires_at: sql<string>`now() + (${ttlMs} * interval '1 millisecond')` })
      .where('process', '=', process)
      .execute();
  }

  async dropSlot(ip: string, holder: string): Promise<void> {
    await this.db.deleteFrom('ws_connection_slots').where('ip', '=', ip).where('holder', '=', holder).execute();
  }
}
