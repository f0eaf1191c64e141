// What an operator watches (src/service.ts): the probes, and the system status (GET /v1/admin/status) with
// its gauges.
import type { Registry } from 'prom-client';
import type { Runtime } from '../runtime.js';
import { chainHealth, chainStatus } from '../domain/settlement/onchain/chain-status.js';
import { sourceStatuses } from '../domain/prices/health.js';
import { priceSourceComponents, type StatusComponent } from '../domain/status.js';
import type { ProcessRole } from '../http/handlers/operations.js';
import { createProbes } from '../http/probes.js';
import { registerResolutionGauges } from '../http/resolution-metrics.js';
import { createSystemStatus, registerStatusGauges } from '../http/system-status.js';

export type Status = ReturnType<typeof openStatus>;

export function openStatus(rt: Runtime, role: ProcessRole, registry: Registry) {
  const { config, orm, queues } = rt;
  const probes = createProbes(rt, role);
  // The external components an operator watches (GET /v1/admin/status, crfq_component_up): every price
  // source, and the chain once an onchain settlement adapter adds itself here.
  const components: StatusComponent[] = priceSourceComponents(config.prices.sources, () =>
    sourceStatuses(orm.em.fork(), config.prices.sources, Date.now()),
  );
  const chainReport = config.chain
    ? () => chainStatus(orm.em.fork(), { nowMs: Date.now(), staleAfterMs: 3 * config.chain!.reconcileEveryMs })
    : undefined;
  if (chainReport) components.push({ name: 'chain', kind: 'chain', check: async () => chainHealth(await chainReport()) });
  const systemStatus = createSystemStatus({
    orm,
    schedulerQueues: probes.schedulerQueues,
    queue: queues,
    bus: rt.bus,
    staleAfterMs: config.workerHeartbeatStaleMs,
    cadence: {
      'sweep-rfqs': config.rfq.sweepEveryMs,
      'probe-price-sources': config.prices.probeEveryMs,
      ...(config.chain ? { 'reconcile-chain': config.chain.reconcileEveryMs } : {}),
    },
    components,
    chain: chainReport,
    overdueAfterMs: config.resolution.overdueAfterMs,
    log: rt.logger,
  });
  registerStatusGauges(registry, systemStatus);
  registerResolutionGauges(registry, systemStatus);
  return { probes, systemStatus };
}
