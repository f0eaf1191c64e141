// Liveness, readiness and metrics: what an orchestrator and a Prometheus scraper call.
import { SIGNATURE_BACKEND } from '../../domain/signatures/recover.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import type { HttpMetrics } from '../metrics.js';
import type { CheckState as CheckStateName, PriceSourceStatus, Readiness } from '../../../generated/openapi/types.gen.js';
import type { SourceStatus } from '../../domain/prices/health.js';
import { NotFound, Unauthorized, Unavailable } from '../../domain/errors.js';
import { timingSafeEqual } from 'node:crypto';
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
  /** The listed price sources' states (a degraded check: it never fails readiness). */
  prices?(): Promise<SourceStatus[]>;
}

/** 'ok' when every listed source is ok, 'unknown' before any probe, else 'degraded' (a source failing, blocked, banned...). */
async function pricesCheck(probe: ReadinessProbe, log: Logger): Promise<{ state: 'ok' | 'degraded' | 'unknown'; sources: SourceStatus[] }> {
  if (!probe.prices) return { state: 'unknown', sources: [] };
  try {
    const sources = await withDeadline(probe.prices(), CHECK_TIMEOUT_MS, 'readiness check prices');
    if (sources.every((s) => s.state === 'unknown')) return { state: 'unknown', sources };
    const down = sources.filter((s) => s.state !== 'ok');
    if (down.length) {
      log.warn(
        { check: 'prices', sources: down.map((s) => ({ source: s.source, state: s.state, reason: s.reason, fix: s.fix })) },
        'readiness check prices degraded',
      );
    }
    return { state: down.length ? 'degraded' : 'ok', sources };
  } catch (err) {
    log.warn({ check: 'prices', err }, 'readiness check prices could not read the sources');
    return { state: 'unknown', sources: [] };
  }
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

/** METRICS_TOKEN: /metrics answers only `Authorization: Bearer <token>` (constant-time compare); unset: anyone. */
export function metricsTokenMatches(token: string | undefined, authorization: string | string[] | undefined): boolean {
  if (token === undefined) return true;
  const given = Buffer.from(typeof authorization === 'string' ? authorization : '');
  const want = Buffer.from(`Bearer ${token}`);
  return given.length === want.length && timingSafeEqual(given, want);
}

/**
 * `metricsElsewhere`: METRICS_PORT is set and this is not its server: /metrics answers 404 here, as an unknown
 * path does (src/http/probes.ts startMetricsServer serves it on the internal port).
 */
export function operationsHandlers(
  probe: ReadinessProbe,
  metrics: HttpMetrics,
  metricsToken?: string,
  metricsElsewhere = false,
): HandlersFor<'getHealth' | 'getReadiness' | 'getMetrics'> {
  return {
    getHealth: () => ({ status: 200, body: { status: 'ok' }, headers: NO_STORE }),
    getReadiness: async (_req, { log }) => {
      const [database, queue, bus, workers, schedulers, migrations, prices] = await Promise.all([
        check('database', probe.database, log),
        check('queue', probe.queue, log),
        check('bus', probe.bus, log),
        check('workers', probe.workers, log),
        check('schedulers', probe.schedulers, log),
        check(
          'migrations',
          async () => {
            if ((await probe.migrations()) === 'pending')
              throw new CheckState('pending', 'the database is behind this build: run the migration step');
          },
          log,
        ),
        pricesCheck(probe, log),
      ]);
      const checks: Readiness['checks'] = { database, queue, bus, migrations, workers, schedulers, prices: prices.state };
      const priceSources = prices.sources.map((s) => ({
        source: s.source as PriceSourceStatus['source'],
        state: s.state,
        reason: s.reason,
        fix: s.fix,
        retry_at_ms: s.retryAtMs,
        checked_at_ms: s.checkedAtMs,
        last_success_at_ms: s.lastSuccessAtMs,
        last_failure_at_ms: s.lastFailureAtMs,
      }));
      const failing = REQUIRED_CHECKS[probe.role].filter((k) => checks[k] !== 'ok');
      if (failing.length) {
        throw new Unavailable(`not ready: ${failing.map((k) => `${k} ${checks[k]}`).join('; ')}`, { role: probe.role, checks });
      }
      // Before any window resolved the price sources are 'unknown': nothing is wrong yet.
      const status = Object.entries(checks).every(([k, v]) => v === 'ok' || (k === 'prices' && v === 'unknown')) ? 'ready' : 'degraded';
      const body: Readiness = { status, role: probe.role, checks, price_sources: priceSources, signature_backend: SIGNATURE_BACKEND };
      return { status: 200, body, headers: NO_STORE };
    },
    getMetrics: async (req) => {
      if (metricsElsewhere) throw new NotFound('NOT_FOUND', 'no route GET /metrics; see the OpenAPI document');
      if (!metricsTokenMatches(metricsToken, req.headers.authorization)) {
        throw new Unauthorized('/metrics needs Authorization: Bearer <METRICS_TOKEN>', 'INVALID_METRICS_TOKEN');
      }
      return {
        status: 200,
        raw: { data: await metrics.registry.metrics(), contentType: metrics.registry.contentType },
        headers: NO_STORE,
      };
    },
  };
}
