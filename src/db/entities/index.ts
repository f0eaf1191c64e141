import { WorkerHeartbeat } from './worker-heartbeat.entity.js';
import { User } from './user.entity.js';
import { Session } from './session.entity.js';

export { WorkerHeartbeat, User, Session };

/** Every entity the ORM knows; migrations (not schema sync) create their tables. */
export const entities = [WorkerHeartbeat, User, Session];
