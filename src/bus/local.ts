// The embedded deployment's bus: one process, so local delivery is all there is.
import { createHub, type Bus, type BusOptions } from './bus.js';

export function createLocalBus(opts: Pick<BusOptions, 'onError'> = {}): Bus {
  const hub = createHub(opts.onError);
  return {
    kind: 'local',
    instanceId: hub.instanceId,
    async publish(topic, payload) {
      hub.prepare(topic, payload);
    },
    subscribe: (topic, fn) => hub.subscribe(topic, fn),
    async ping() {
      hub.assertOpen();
    },
    async close() {
      hub.closeHub();
    },
  };
}
