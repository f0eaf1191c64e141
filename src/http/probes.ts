// The probes of a process of any role: the readiness checks (src/http/readiness.ts) on its runtime, and for a
// workers process, which has no API, a small HTTP server of its own (on PORT when set) that answers /healthz, /readyz
// and /metrics exactly as an API process does (same handlers, same bodies) and 404 to everything else. With
// METRICS_PORT, /metrics moves to a server of its own on that port (startMetricsServer), in either role.
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
type ProbePath = keyof typeof PROBE_PATHS;

/**
 * A workers process's probe server on config.probePort (PORT when set; else a free port, logged): /healthz, /readyz
 * and, unless METRICS_PORT moves it to startMetricsServer's, /metrics.
 */
export async function startProbeServer(rt: Runtime, probes: Probes, metrics: HttpMetrics = createMetrics()): Promise<ProbeServer> {
  const paths: ProbePath[] = rt.config.metricsPort === undefined ? ['/healthz', '/readyz', '/metrics'] : ['/healthz', '/readyz'];
  const handlers = operationsHandlers(probes.readiness, metrics, rt.config.metricsToken);
  return serve(rt, handlers, rt.config.probePort, paths, `a workers process serves only GET ${paths.join(', ')} here`, 'listening');
}

/**
 * METRICS_PORT (docs/deployment.md, "Prometheus gauges"): /metrics alone on the internal port, for an API or a
 * workers process; METRICS_TOKEN, when set, still applies. The public port then answers /metrics 404.
 */
export async function startMetricsServer(rt: Runtime, probes: Probes, metrics: HttpMetrics): Promise<ProbeServer> {
  const handlers = operationsHandlers(probes.readiness, metrics, rt.config.metricsToken);
  // Its own log line: "listening" is the main port's (tests and operators read the port from it).
  return serve(rt, handlers, rt.config.metricsPort ?? 0, ['/metrics'], 'the metrics port serves only GET /metrics', 'metrics listening');
}

async function serve(
  rt: Runtime,
  handlers: ReturnType<typeof operationsHandlers>,
  listenPort: number,
  paths: ProbePath[],
  notFound: string,
  listening: string,
): Promise<ProbeServer> {
  const { config, logger } = rt;
  const server: Server = createServer((req, res) => {
    const lane = Object.assign(res, { locals: {} as Record<string, unknown> }) as LaneResponse;
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const path = (req.url ?? '/').split('?')[0] as ProbePath;
    const operationId = req.method === 'GET' && paths.includes(path) ? PROBE_PATHS[path] : undefined;
    if (!operationId) {
      writeError(lane, new NotFound('NOT_FOUND', notFound), logger, requestId);
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
    server.listen(listenPort, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: config.host, probes: paths }, listening);
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
