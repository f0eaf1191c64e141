// Redis pub/sub: one connection publishes (commands keep their order: FIFO per publisher), a duplicate()
// subscribes (a subscribed connection can do nothing else). ioredis reconnects and resubscribes on its own.
//
// Pub/sub ignores the database index: the channel is `<prefix>_bus:db<index>[/<deployment id>]` and each
// envelope carries that scope, so deployments sharing a Redis server stay apart (docs/market-makers.md).
// Publishing is bounded: while the publisher is not connected a message is dropped at once, and a PUBLISH
// that gets no answer within PUBLISH_DEADLINE_MS is given up (at-most-once); callers never wait on an
// outage. This process's own subscribers were served before the transport (bus.ts), so makers connected
// here keep receiving RFQs created here while Redis is down.
import { Redis } from 'ioredis';
import { busChannel, createHub, type Bus, type BusOptions } from './bus.js';

export const PUBLISH_DEADLINE_MS = 250;

/** The deployment scope of a Redis bus: the database index, and the deployment id when there is one. */
export function redisBusScope(dbIndex: number, deploymentId: string | undefined): string {
  return `db${dbIndex}${deploymentId ? `/${deploymentId}` : ''}`;
}

export async function createRedisBus(opts: BusOptions & { redisUrl: string }): Promise<Bus> {
  const base = busChannel(opts.prefix);
  // Named, so operators (and the tests) can tell the bus's connections apart in CLIENT LIST.
  // Auto-pipelined: the PUBLISHes issued in one turn of the event loop (a close's rfq.closed, fill and mm.event
  // messages) go out as one socket write after that turn's promise callbacks (ioredis flushes on
  // process.nextTick), so the closer no longer writes to Redis four times before its caller answers the
  // taker (those writes were ~0.9 ms per close on a loaded 2-core box, bench:rfq item 2's profile of process
  // A, docs/fill-path.md "Measurements"). Order per publisher is unchanged.
  const pub = new Redis(opts.redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    enableAutoPipelining: true,
    connectionName: `${base}-pub`,
  });
  const scope = redisBusScope(pub.options.db ?? 0, opts.deploymentId);
  const channel = `${base}:${scope}`;
  const hub = createHub(opts.onError, scope);
  const sub = pub.duplicate({ connectionName: `${base}-sub`, enableAutoPipelining: false });
  pub.on('error', (err) => hub.onError(err, 'redis bus publisher'));
  sub.on('error', (err) => hub.onError(err, 'redis bus subscriber'));
  sub.on('message', (ch: string, raw: string) => {
    if (ch === channel) hub.receive(raw);
  });
  try {
    await sub.subscribe(channel);
  } catch (err) {
    pub.disconnect();
    sub.disconnect();
    throw err;
  }
  return {
    kind: 'redis',
    instanceId: hub.instanceId,
    async publish(topic, payload) {
      const raw = hub.prepare(topic, payload);
      if (pub.status !== 'ready') return hub.onError(new Error(`redis bus publisher is ${pub.status}`), `redis bus publish ${topic}`);
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          pub.publish(channel, raw),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${PUBLISH_DEADLINE_MS} ms`)), PUBLISH_DEADLINE_MS);
          }),
        ]);
      } catch (err) {
        hub.onError(err, `redis bus publish ${topic}`);
      } finally {
        clearTimeout(timer);
      }
    },
    subscribe: (topic, fn) => hub.subscribe(topic, fn),
    async ping() {
      hub.assertOpen();
      if (sub.status !== 'ready') throw new Error(`redis bus subscriber is ${sub.status}`);
      if ((await pub.ping()) !== 'PONG') throw new Error('redis bus publisher did not answer PONG');
    },
    async close() {
      hub.closeHub();
      await Promise.allSettled([sub.quit(), pub.quit()]);
      sub.disconnect();
      pub.disconnect();
    },
  };
}
