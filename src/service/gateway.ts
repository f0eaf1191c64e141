// The WebSocket gateway (src/service.ts): market makers and users, with their connection caps shared across
// processes.
import type { Runtime } from '../runtime.js';
import type { ClientAddress } from '../http/client-address.js';
import type { RfqLifecycle } from '../trading/rfq-lifecycle.js';
import { createSharedConnectionCap } from '../ws/connection-slots.js';
import { createGateway } from '../ws/gateway.js';

/** The lease store's settings, shared by the connection caps and the rate limit's counters. */
export type SharedStore = ReturnType<typeof sharedStore>;

export const sharedStore = ({ config, orm, logger }: Runtime) => ({
  deployment: config.deployment,
  redisUrl: config.redisUrl,
  prefix: config.queuePrefix,
  orm,
  log: logger,
});

export function openGateway(rt: Runtime, shared: SharedStore, clientAddress: ClientAddress, trading: RfqLifecycle) {
  const { config, logger, orm } = rt;
  const sharedCap = createSharedConnectionCap({ ...shared, max: config.mm.maxConnectionsPerIp });
  // USER_WS_MAX_PER_USER across processes: the same lease store, keyed `user:<id>` (src/ws/user-stream.ts).
  const userCap = createSharedConnectionCap({ ...shared, max: config.userChannel.maxPerUser });
  const gateway = createGateway({
    clientAddress,
    mm: config.mm,
    orm,
    logger,
    checkFrames: config.nodeEnv !== 'production',
    sharedCap,
    bus: rt.bus,
    rfq: {
      trading,
      offered: { assets: config.markets.assets, durations: config.markets.durations },
      maxQuotesPerSecond: config.rfq.mmMaxQuotesPerSecond,
    },
    user: { maxPerUser: config.userChannel.maxPerUser, sharedCap: userCap },
  });
  return { gateway, sharedCap, userCap };
}
