// The demo seed's marker (src/domain/demo/seed.ts): a row in service_keys claimed in the seed's transaction.
import type { Db } from '../schema.js';

export class DemoRepository {
  constructor(private readonly db: Db) {}

  /** True when this call inserted the marker (the caller seeds); false when it was already there. */
  async claimMarker(name: string, key: Uint8Array): Promise<boolean> {
    const rows = await this.db
      .insertInto('service_keys')
      .values({ name, key })
      .onConflict((oc) => oc.column('name').doNothing())
      .returning('name')
      .execute();
    return rows.length === 1;
  }
}
