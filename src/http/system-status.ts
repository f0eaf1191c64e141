// The whole-system view of an API process: GET /v1/admin/status and the crfq_* gauges of /metrics
// (docs/deployment.md, alert rules in docs/alerts.yml). One report at a time: concurrent callers (a scrape
// and an operator) share the report in flight and a report younger than REPORT_REUSE_MS.
import { Gauge, type Registry } from 'prom-client';
import { PendingReasonSchema } from '../../generated/openapi/schemas.gen.js';
import type { SystemStatus } from '../../generated/openapi/types.gen.js';
import { check } from './handlers/operations.js';
import {
  componentsOf,
  queuesOf,
  resolutionOf,
  schedulersOf,
  waitingOf,
  workersOf,
  type SystemStatusDeps,
} from './system-status-sections.js';
import { repos } from '../db/repos.js';

const REPORT_REUSE_MS = 1000;

export interface SystemStatusSource {
  report(): Promise<SystemStatus>;
}

export function createSystemStatus(deps: SystemStatusDeps): SystemStatusSource {
  const { orm, log } = deps;
  let last: { at: number; report: Promise<SystemStatus> } | undefined;

  const build = async (): Promise<SystemStatus> => {
    const now = Date.now();
    const [database, queue, bus, workers, schedulers, queues, components, waiting, resolution, chain] = await Promise.all([
      check('database', () => repos(orm.em.fork()).system.ping(), log),
      check('queue', () => deps.queue.ping(), log),
      check('bus', () => deps.bus.ping(), log),
      workersOf(deps, now),
      schedulersOf(deps),
      queuesOf(deps),
      componentsOf(deps),
      waitingOf(deps),
      resolutionOf(deps, now),
      deps.chain?.(),
    ]);
    const allOk =
      [database, queue, bus, workers.state].every((s) => s === 'ok') &&
      schedulers.every((s) => s.state === 'ok') &&
      components.every((c) => c.state === 'ok') &&
      resolution.state === 'ok' &&
      resolution.overdue === 0 &&
      resolution.disputed === 0;
    return {
      status: allOk ? 'ok' : 'degraded',
      checked_at_ms: now,
      dependencies: { database, queue, bus },
      workers,
      schedulers,
      queues,
      components,
      operations_waiting: waiting,
      resolution,
      ...(chain ? { chain } : {}),
    };
  };

  return {
    report() {
      if (last && Date.now() - last.at < REPORT_REUSE_MS) return last.report;
      const report = build();
      last = { at: Date.now(), report };
      return report;
    },
  };
}

/** The crfq_* gauges; the gauges of one scrape share one report (SystemStatusSource.report reuses it). */
export function registerStatusGauges(registry: Registry, source: SystemStatusSource): void {
  const current = () => source.report();
  const up = (s: string) => (s === 'ok' ? 1 : 0);
  new Gauge({
    name: 'crfq_dependency_up',
    help: 'Whether this API process reaches its database, queue backend and bus (1) or not (0)',
    labelNames: ['dependency'],
    registers: [registry],
    async collect() {
      const r = await current();
      for (const [dependency, state] of Object.entries(r.dependencies)) this.set({ dependency }, up(state));
    },
  });
  new Gauge({
    name: 'crfq_workers_alive',
    help: 'Worker processes whose heartbeat is younger than WORKER_HEARTBEAT_STALE_MS',
    registers: [registry],
    async collect() {
      this.set((await current()).workers.alive);
    },
  });
  new Gauge({
    name: 'crfq_worker_heartbeat_age_seconds',
    help: 'Age of the newest worker heartbeat (absent when no worker ever beat)',
    registers: [registry],
    async collect() {
      const r = await current();
      this.reset();
      if (r.workers.newest_heartbeat_ms !== null) this.set(Math.max(0, r.checked_at_ms - r.workers.newest_heartbeat_ms) / 1000);
    },
  });
  new Gauge({
    name: 'crfq_scheduler_present',
    help: 'Whether each BullMQ job scheduler exists (1) or not (0)',
    labelNames: ['scheduler'],
    registers: [registry],
    async collect() {
      for (const s of (await current()).schedulers) this.set({ scheduler: s.id }, up(s.state));
    },
  });
  new Gauge({
    name: 'crfq_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const q of (await current()).queues)
        for (const state of ['waiting', 'active', 'delayed', 'failed'] as const) this.set({ queue: q.queue, state }, q[state]);
    },
  });
  new Gauge({
    name: 'crfq_component_up',
    help: 'Whether each external component (price source, chain) is ok (1) or not (0: unknown before its first probe, failing, blocked, banned)',
    labelNames: ['component', 'kind'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of (await current()).components) this.set({ component: c.name, kind: c.kind }, up(c.state));
    },
  });
  new Gauge({
    name: 'crfq_operations_waiting',
    help: 'Pending deposits and withdrawals per waiting reason (needs_review: an operator must resolve them)',
    labelNames: ['reason'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const reason of PendingReasonSchema.enum) this.set({ reason }, 0);
      for (const w of (await current()).operations_waiting) this.set({ reason: w.pending_reason }, w.count);
    },
  });
}
