// The deployment's id: random, made once per database (the row `service_keys('deployment_id')`), the same
// for every process of the deployment and different for any other. The Redis bus scopes its channel and
// envelopes with it (src/bus/redis.ts): Redis pub/sub ignores the database index, so two deployments on
// one Redis server would otherwise hear each other's RFQs and maker events.
import { randomBytes } from 'node:crypto';
import { SystemRepository } from '../db/repositories/system.repository.js';
import type { Db } from '../db/schema.js';

const NAME = 'deployment_id';

/** The id (16 hex characters), created by the first process that asks; needs the migrated schema. */
export async function readDeploymentId(db: Db): Promise<string> {
  const key = await new SystemRepository(db).ensureServiceKey(NAME, randomBytes(32)); // keys are at least 16 bytes; the id is the first 8
  return Buffer.from(key).subarray(0, 8).toString('hex');
}
