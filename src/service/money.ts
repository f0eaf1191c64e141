// Deposits and withdrawals (src/service.ts): the settlement adapter and its gauges, and the money
// lifecycle's steps under the custody rules, the only publisher of money events.
import type { Registry } from 'prom-client';
import type { Runtime } from '../runtime.js';
import type { Em } from '../db/orm.js';
import { openSettlement } from '../domain/settlement/index.js';
import { withDeadline } from '../jobs/queue-gate.js';
import { startSettlementGauges } from '../http/settlement-gauges.js';
import { createMoneyLifecycle } from '../trading/money-lifecycle.js';
import { openCustody } from '../trading/money-custody.js';
import type { Producers } from './producers.js';

export type Money = Awaited<ReturnType<typeof openMoney>>;

export async function openMoney(rt: Runtime, forkDb: () => Em, registry: Registry, producers: Producers) {
  const { config, logger } = rt;
  const settlement = await openSettlement(config, rt.orm.em.fork(), logger);
  const settlementGauges = startSettlementGauges({ registry, settlement, forkDb, log: logger });
  const custody = openCustody(config, logger);
  const money = createMoneyLifecycle({
    forkDb,
    bus: rt.bus,
    settlement,
    log: logger,
    custody: custody.custody,
    // An approval's enqueue is bounded like a request's (its outbox row is the relay's backstop).
    producer: {
      enqueue: producers.settlement.enqueue,
      ensure: (id) => withDeadline(producers.settlement.ensure(id), config.queueWaitMs, 'enqueue'),
    },
    waiter: producers.operationWaiter,
    syncWaitMs: config.depositSyncWaitMs,
  });
  return { settlement, settlementGauges, custody, money };
}
