// Process lifecycle for every role: parse config, open the runtime, start the role's parts, and shut down
// gracefully on SIGTERM/SIGINT (stop accepting, finish in-flight requests and jobs, close connections).
import { loadConfig, ConfigError } from './config/load.js';
import type { Config } from './config/types.js';
import { setFailpoints } from './failpoints.js';
import { createLogger, flushLogs, type Logger } from './logger.js';
import { openRuntime, PendingMigrationsError, type Runtime } from './runtime.js';

export type Role = 'all' | 'api' | 'workers';

export async function runProcess(role: Role): Promise<void> {
  const config = configOrExit(role);
  const logger = createLogger(config.logLevel, { role }, { async: true });
  setFailpoints(config.failpoints);
  if (Object.keys(config.failpoints).length) logger.warn({ failpoints: config.failpoints }, 'failpoints set: this process injects faults');
  const rt = await runtimeOrExit(config, logger);
  // Stop accepting requests first, then let the workers finish their jobs, then close connections.
  const stops: Stops = [];
  let started: Promise<void> = Promise.resolve();
  const shutdown = createShutdown(config, logger, rt, stops, () => started);
  // Installed before anything starts: a SIGTERM at any moment after this is a graceful stop.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled promise rejection'));

  started = startRole(role, rt, logger, stops);
  try {
    await started;
  } catch (err) {
    logger.fatal({ err }, `start-up failed: ${(err as Error).message}`);
    for (const stop of stops) await stop().catch(() => undefined);
    await rt.close();
    flushLogs(logger);
    process.exit(err instanceof PriceListingError ? 78 : 1);
  }
}

/** What shutdown stops, in order (the API first, then the workers). */
type Stops = Array<() => Promise<void>>;

/** The config, or exit 78 (EX_CONFIG) naming every bad key. */
function configOrExit(role: Role): Readonly<Config> {
  try {
    return loadConfig(process.env, { role });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`contest-rfq-service: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

async function runtimeOrExit(config: Readonly<Config>, logger: Logger): Promise<Runtime> {
  try {
    return await openRuntime(config, logger);
  } catch (err) {
    logger.fatal({ err }, `start-up failed: ${(err as Error).message}`);
    flushLogs(logger);
    // EX_TEMPFAIL: a supervisor restarting this process later (after the migration step) is the remedy.
    process.exit(err instanceof PendingMigrationsError ? 75 : 1);
  }
}

/** The graceful stop (once): what has started stops in order, then the runtime; exit 1 past SHUTDOWN_TIMEOUT_MS. */
function createShutdown(config: Readonly<Config>, logger: Logger, rt: Runtime, stops: Stops, started: () => Promise<void>) {
  let stopping = false;
  return async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: config.shutdownTimeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    await started().catch(() => undefined); // a signal during start-up stops what has started, once it has
    for (const stop of stops) {
      try {
        await stop();
      } catch (err) {
        logger.warn({ err }, 'error during shutdown');
      }
    }
    await rt.close();
    logger.info('stopped');
    flushLogs(logger); // the 'exit' hook would too; explicit here, where a graceful stop ends
    process.exit(0);
  };
}

/** Starts the role's parts, each adding its stop to `stops`. */
async function startRole(role: Role, rt: Runtime, logger: Logger, stops: Stops): Promise<void> {
  const { config } = rt;
  // Every price source probed once (docs/prices.md): its state is known before anything trades, and an offered
  // asset fewer than PRICE_QUORUM sources list makes production refuse to start (EX_CONFIG), naming them.
  const { checkPriceSourcesAtStart } = await import('./jobs/price-probes.js');
  const problems = await checkPriceSourcesAtStart(config, () => rt.orm.em.fork(), logger);
  if (problems.length && config.nodeEnv === 'production') throw new PriceListingError(problems);
  if (problems.length) logger.warn({ problems }, 'offered assets listed by fewer price sources than PRICE_QUORUM (refused in production)');
  // Workers first: their first heartbeat and schedulers exist by the time the API answers /readyz
  // (which no longer waits for them: a missing heartbeat only degrades an API's readiness).
  // Shutdown still stops the API first (stops[0]), then the workers.
  if (role === 'all' || role === 'workers') {
    const { startWorkers } = await import('../workers/start.js');
    const workers = await startWorkers(rt);
    stops.push(() => workers.close());
    if (role === 'workers') {
      // A workers process has no API: its own /healthz, /readyz and /metrics on PORT, or /metrics on METRICS_PORT
      // (src/http/probes.ts).
      const { createProbes, startMetricsServer, startProbeServer } = await import('./http/probes.js');
      const { createMetrics } = await import('./http/metrics.js');
      const probes = createProbes(rt, role);
      const metrics = createMetrics();
      const server = await startProbeServer(rt, probes, metrics);
      const metricsServer = config.metricsPort === undefined ? undefined : await startMetricsServer(rt, probes, metrics);
      stops.unshift(async () => (await server.close(), await metricsServer?.close(), await probes.close()));
    }
  }
  if (role === 'all' || role === 'api') {
    const { startHttp } = await import('./service.js');
    const http = await startHttp(rt, role);
    stops.unshift(() => http.close());
  }
}

/** Start-up refused in production: an offered asset is listed by fewer price sources than PRICE_QUORUM. */
class PriceListingError extends Error {
  constructor(readonly problems: string[]) {
    super(`price sources: ${problems.join('; ')}`);
    this.name = 'PriceListingError';
  }
}
