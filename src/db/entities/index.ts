import { WorkerHeartbeat } from './worker-heartbeat.entity.js';
import { User } from './user.entity.js';
import { Session } from './session.entity.js';
import { Market } from './market.entity.js';
import { MarketMaker } from './market-maker.entity.js';

export { WorkerHeartbeat, User, Session, Market, MarketMaker };

/** Every entity the ORM knows; migrations (not schema sync) create their tables. */
export const entities = [WorkerHeartbeat, User, Session, Market, MarketMaker];
