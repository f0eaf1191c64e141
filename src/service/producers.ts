// The queues the HTTP handlers enqueue on (src/service.ts). Enqueues give up after QUEUE_WAIT_MS (the outbox
// and resolution relays take over): no request hangs on Redis.
import type { Runtime } from '../runtime.js';
import { boundEnqueue, withDeadline } from '../jobs/queue-gate.js';
import { createResolutionProducer } from '../jobs/resolution-producer.js';
import { createSettlementProducer } from '../jobs/settlement-producer.js';
import { createWindowResolutionProducer } from '../jobs/window-resolution-producer.js';
import { createOperationWaiter } from '../trading/operation-waiter.js';

export type Producers = ReturnType<typeof openProducers>;

export function openProducers({ config, queues, bus }: Runtime) {
  const settlement = boundEnqueue(createSettlementProducer(queues), config.queueWaitMs);
  const resolution = boundEnqueue(createResolutionProducer(queues), config.queueWaitMs);
  const operationWaiter = createOperationWaiter(bus);
  const window = createWindowResolutionProducer(queues);
  const windowSettlement = { enqueue: (marketId: number) => withDeadline(window.enqueue(marketId), config.queueWaitMs, 'enqueue') };
  return { settlement, resolution, operationWaiter, window, windowSettlement };
}
