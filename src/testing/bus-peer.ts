// A second process on the bus, for src/bus/bus.int.test.ts: echoes every rfq.open payload back on
// rfq.closed as {echo: payload, pid}. Prints "ready" once subscribed; exits on SIGTERM after close().
import { createBus } from '../bus/create.js';

const bus = await createBus({ prefix: process.env.BUS_PREFIX!, redisUrl: process.env.REDIS_URL, databaseUrl: process.env.DATABASE_URL });
bus.subscribe('rfq.open', (payload) => {
  void bus.publish('rfq.closed', { echo: payload, pid: process.pid });
});
process.on('SIGTERM', () => {
  void bus.close().then(() => process.exit(0));
});
process.stdout.write(`ready ${bus.kind} ${bus.instanceId}\n`);
