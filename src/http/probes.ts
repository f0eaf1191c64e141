// The probes of a process of any role: the readiness checks (src/http/readiness.ts) on its runtime, and for a
// workers process, which has no API, a small HTTP server of its own (on PORT when set) that answers /healthz, /readyz
// and /metrics exactly as an API process does (same handlers, same bodies) and 404 to everything else.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../runtime.js';
import { NotFound } from '../domain/errors.js';
import { SchedulerQueues } from '../jobs/schedulers.js';
import { createRequestContext } from './context.js';
import type { HandlerResponse } from './handler.js';
import { operationsHandlers, type ProcessRole, type ReadinessProbe } from './handlers/operations.js';
import { createMetrics, type HttpMetrics } from './metrics.js';
import { readinessProbe } from './readiness.js';
import { writeError, writeResult, type LaneResponse } from './respond.js';
import { createWorkerHealth } from './worker-health.js';

export interface Probes {
  readiness: ReadinessProbe;
  /** The scheduler queues the checks read (shared with the status report of an API process). */
  schedulerQueues: SchedulerQueues;
  close(): Promise<void>;
}

export function createProbes(rt: Runtime, role: ProcessRole): Probes {
  const schedulerQueues = new SchedulerQueues(rt.queues);
  const workers = createWorkerHealth(rt.orm, schedulerQueues, rt.config.workerHeartbeatStaleMs);
  return {
    readiness: readinessProbe({ role, orm: rt.orm, queue: rt.queues, bus: rt.bus, workers, priceSources: rt.config.prices.sources }),
    schedulerQueues,
    close: () => schedulerQueues.close(),
  };
}

export interface ProbeServer {
  port: number;
  close(): Promise<void>;
}

const PROBE_PATHS = { '/healthz': 'getHealth', '/readyz': 'getReadiness', '/metrics': 'getMetrics' } as const;

/** A workers process's probe server on config.probePort (PORT when set; else a free port, logged). */
export async function startProbeServer(rt: Runtime, probes: Probes, metrics: HttpMetrics = createMetrics()): Promise<ProbeServer> {
  const { config, logger } = rt;
  const handlers = operationsHandlers(probes.readiness, metrics, config.metricsToken);
  const server: Server = createServer((req, res) => {
    const lane = Object.assign(res, { locals: {} as Record<string, unknown> }) as LaneResponse;
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const path = (req.url ?? '/').split('?')[0] as keyof typeof PROBE_PATHS;
    const operationId = req.method === 'GET' ? PROBE_PATHS[path] : undefined;
    if (!operationId) {
      writeError(lane, new NotFound('NOT_FOUND', `a workers process serves only GET /healthz, /readyz and /metrics`), logger, requestId);
      return;
    }
    const ctx = createRequestContext(() => rt.orm.em.fork(), {
      log: () => logger.child({ request_id: requestId }),
      auth: { kind: 'anonymous' },
      requestId,
    });
    const handler = handlers[operationId] as (r: unknown, c: typeof ctx) => Promise<HandlerResponse> | HandlerResponse;
    Promise.resolve()
      .then(() => handler({ operationId, headers: req.headers }, ctx))
      .then(
        (result) => writeResult(lane, result),
        (err: unknown) => writeError(lane, err, logger, requestId),
      );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.probePort, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: config.host, probes: Object.keys(PROBE_PATHS) }, 'listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
