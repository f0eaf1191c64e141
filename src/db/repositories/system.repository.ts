// The service's own rows and probes: the database ping of /readyz and the system status, and the
// deployment id's key (service_keys, read by src/bus/deployment.ts).
import { sql } from 'kysely';
import type { Db } from '../schema.js';

export class SystemRepository {
  constructor(private readonly db: Db) {}

  /** One round trip: the database answers. */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  /** Pending operations per known waiting reason (operations.pending_reason), with the oldest reason's start. */
  async operationsWaiting(): Promise<Array<{ pending_reason: string; count: number; oldest: Date | string | null }>> {
    const { rows } = await sql<{ pending_reason: string; count: number; oldest: Date | string | null }>`
      select pending_reason, count(*)::int as count, min(pending_reason_at) as oldest
        from operations where status = 'pending' and pending_reason is not null
       group by pending_reason order by pending_reason`.execute(this.db);
    return rows;
  }

  /** The service key `name`, created with `fresh` by the first caller (a concurrent caller's insert does nothing). */
  async ensureServiceKey(name: string, fresh: Buffer): Promise<Uint8Array> {
    await this.db
      .insertInto('service_keys')
      .values({ name, key: fresh })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.selectFrom('service_keys').select('key').where('name', '=', name).executeTakeFirstOrThrow();
    return row.key;
  }
}
