// Liveness, readiness and metrics: what an orchestrator and a Prometheus scraper call.
import type { HandlersFor } from '../handler.js';
import type { HttpMetrics } from '../metrics.js';
import type { CheckState as CheckStateName, Readiness } from '../../../generated/openapi/types.gen.js';
import { Unavailable } from '../../domain/errors.js';
import type { Logger } from '../../logger.js';
import { withDeadline } from '../../jobs/queue-gate.js';

export type ProcessRole = Readiness['role'];
export type CheckName = keyof Readiness['checks'];

export interface ReadinessProbe {
  /** The role this process serves (src/process.ts); it decides which checks are required. */
  role: ProcessRole;
  /** 'ok' once migrations are applied to the database this process uses, else 'pending'. */
  migrations(): Promise<'ok' | 'pending'>;
  database(): Promise<void>;
  queue(): Promise<void>;
  /** The cross-process bus (RFQ fan-out and long-poll wake-ups). */
  bus(): Promise<void>;
  /** Throws CheckState('stale' | 'missing') when no worker process recorded a recent heartbeat. */
  workers(): Promise<void>;
  /** Throws CheckState('missing') when a job scheduler does not exist. */
  schedulers(): Promise<void>;
}

/**
 * The checks without which a process of each role cannot serve: an API (and `all`) needs its database, queue
 * and bus; a workers process its database and queue. Every other check is reported, and only degrades.
 */
export const REQUIRED_CHECKS: Readonly<Record<ProcessRole, readonly CheckName[]>> = {
  all: ['migrations', 'database', 'queue', 'bus'],
  api: ['migrations', 'database', 'queue', 'bus'],
  workers: ['migrations', 'database', 'queue'],
};

/** A failed check with a state more precise than 'failed' (e.g. workers 'stale'). */
export class CheckState extends Error {
  constructor(
    readonly state: CheckStateName,
    message: string,
  ) {
    super(message);
  }
}

export const CHECK_TIMEOUT_MS = 2000;

class CheckTimeout extends Error {}

/** 'ok', 'timeout' or 'failed': the reason is logged, never put on the wire (it can name hosts and databases). */
export async function check(name: string, fn: () => Promise<void>, log: Logger): Promise<CheckStateName> {
  try {
    await withDeadline(fn(), CHECK_TIMEOUT_MS, `check ${name}`, () => new CheckTimeout());
    return 'ok';
  } catch (err) {
    if (err instanceof CheckState) {
      log.warn({ check: name, state: err.state }, `check ${name} ${err.state}: ${err.message}`);
      return err.state;
    }
    const timedOut = err instanceof CheckTimeout;
    log.warn({ check: name, err }, `check ${name} ${timedOut ? 'timed out' : 'failed'}`);
    return timedOut ? 'timeout' : 'failed';
  }
}

export function operationsHandlers(probe: ReadinessProbe, metrics: HttpMetrics): HandlersFor<'getHealth' | 'getReadiness' | 'getMetrics'> {
  return {
    getHealth: () => ({ status: 200, body: { status: 'ok' }, headers: { 'Cache-Control': 'no-store' } }),
    getReadiness: async (_req, { log }) => {
      const [database, queue, bus, workers, schedulers, migrations] = await Promise.all([
        check('database', probe.database, log),
        check('queue', probe.queue, log),
        check('bus', probe.bus, log),
        check('workers', probe.workers, log),
        check('schedulers', probe.schedulers, log),
        probe.migrations().catch(() => 'failed' as const),
      ]);
      const checks: Readiness['checks'] = { database, queue, bus, migrations, workers, schedulers };
      const failing = REQUIRED_CHECKS[probe.role].filter((k) => checks[k] !== 'ok');
      if (failing.length) {
        throw new Unavailable(`not ready: ${failing.map((k) => `${k} ${checks[k]}`).join('; ')}`, { role: probe.role, checks });
      }
      const status = Object.values(checks).every((v) => v === 'ok') ? 'ready' : 'degraded';
      const body: Readiness = { status, role: probe.role, checks };
      return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
    },
    getMetrics: async () => ({
      status: 200,
      raw: { data: await metrics.registry.metrics(), contentType: metrics.registry.contentType },
      headers: { 'Cache-Control': 'no-store' },
    }),
  };
}
