import { WorkerHeartbeat } from './worker-heartbeat.entity.js';

export { WorkerHeartbeat };

/** Every entity the ORM knows; migrations (not schema sync) create their tables. */
export const entities = [WorkerHeartbeat];
