// Liveness, readiness and metrics: what an orchestrator and a Prometheus scraper call.
import { SIGNATURE_BACKEND } from '../../domain/signatures/recover.js';
import type { HandlersFor } from '../handler.js';
import type { HttpMetrics } from '../metrics.js';
import { Unavailable } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import { withDeadline } from '../../jobs/queue-gate.js';

export interface ReadinessProbe {
  /** true once migrations have run in this process. */
  migrations(): boolean;
  database(): Promise<void>;
  queue(): Promise<void>;
  /** The cross-process bus (RFQ fan-out and long-poll wake-ups). */
  bus(): Promise<void>;
  /** Throws CheckState('stale' | 'missing') when no worker process recorded a recent heartbeat. */
  workers(): Promise<void>;
  /** Throws CheckState('missing') when a job scheduler does not exist. */
  schedulers(): Promise<void>;
}

/** A failed check with a state more precise than 'failed' (e.g. workers 'stale'). */
export class CheckState extends Error {
  constructor(
    readonly state: string,
    message: string,
  ) {
    super(message);
  }
}

const CHECK_TIMEOUT_MS = 2000;

class CheckTimeout extends Error {}

/** 'ok', 'timeout' or 'failed': the reason is logged, never put on the wire (it can name hosts and databases). */
async function check(name: string, fn: () => Promise<void>, log: Logger): Promise<string> {
  try {
    await withDeadline(fn(), CHECK_TIMEOUT_MS, `readiness check ${name}`, () => new CheckTimeout());
    return 'ok';
  } catch (err) {
    if (err instanceof CheckState) {
      log.warn({ check: name, state: err.state }, `readiness check ${name} ${err.state}: ${err.message}`);
      return err.state;
    }
    const timedOut = err instanceof CheckTimeout;
    log.warn({ check: name, err }, `readiness check ${name} ${timedOut ? 'timed out' : 'failed'}`);
    return timedOut ? 'timeout' : 'failed';
  }
}

export function operationsHandlers(probe: ReadinessProbe, metrics: HttpMetrics): HandlersFor<'getHealth' | 'getReadiness' | 'getMetrics'> {
  return {
    getHealth: () => ({ status: 200, body: { status: 'ok' }, headers: { 'Cache-Control': 'no-store' } }),
    getReadiness: async (_req, { log }) => {
      const [database, queue, bus, workers, schedulers] = await Promise.all([
        check('database', probe.database, log),
        check('queue', probe.queue, log),
        check('bus', probe.bus, log),
        check('workers', probe.workers, log),
        check('schedulers', probe.schedulers, log),
      ]);
      const checks = { database, queue, bus, migrations: probe.migrations() ? 'ok' : 'pending', workers, schedulers };
      const failing = Object.entries(checks).filter(([, v]) => v !== 'ok');
      if (failing.length) {
        throw new Unavailable(`not ready: ${failing.map(([k, v]) => `${k} ${v}`).join('; ')}`, { checks });
      }
      const ready = { database: 'ok', queue: 'ok', bus: 'ok', migrations: 'ok', workers: 'ok', schedulers: 'ok' } as const; // what `checks` holds here
      // The start-up self-test passed, or the process would not be serving (src/domain/signatures/recover.ts).
      const body = { status: 'ready', checks: ready, signature_backend: SIGNATURE_BACKEND } as const;
      return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
    },
    getMetrics: async () => ({
      status: 200,
      raw: { data: await metrics.registry.metrics(), contentType: metrics.registry.contentType },
      headers: { 'Cache-Control': 'no-store' },
    }),
  };
}
