// Redis pub/sub: one connection publishes (commands keep their order: FIFO per publisher), a duplicate()
// subscribes (a subscribed connection can do nothing else). ioredis reconnects and resubscribes on its own.
import { Redis } from 'ioredis';
import { busChannel, createHub, type Bus, type BusOptions } from './bus.js';

export async function createRedisBus(opts: BusOptions & { redisUrl: string }): Promise<Bus> {
  const hub = createHub(opts.onError);
  const channel = busChannel(opts.prefix);
  // Named, so operators (and the tests) can tell the bus's connections apart in CLIENT LIST.
  const pub = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectionName: `${channel}-pub` });
  const sub = pub.duplicate({ connectionName: `${channel}-sub` });
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
      try {
        await pub.publish(channel, raw);
      } catch (err) {
        hub.onError(err, `redis bus publish ${topic}`);
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
