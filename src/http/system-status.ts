// The whole-system view of an API process: GET /v1/admin/status and the crfq_* gauges of /metrics
// (docs/deployment.md, alert rules in docs/alerts.yml). One report at a time: concurrent callers (a scrape
// and an operator) share the report in flight and a report younger than REPORT_REUSE_MS.
import { Gauge, type Registry } from 'prom-client';
import { PendingReasonSchema } from '../../generated/openapi/schemas.gen.js';
import type { SystemStatus } from '../../generated/openapi/types.gen.js';
import type { Orm } from '../db/orm.js';
import { systemRepository } from '../db/repositories/system.repository.js';
import { db } from '../db/schema.js';
import type { Logger } from '../logger.js';
import { recentHeartbeats } from '../domain/heartbeats.js';
import type { StatusComponent } from '../domain/status.js';
import { resolutionBacklog, type ResolutionBacklog } from '../domain/markets/resolution-backlog.js';
import { QUEUE } from '../jobs/queues.js';
import { SCHEDULERS, type SchedulerCadence, type SchedulerQueues } from '../jobs/schedulers.js';
import { check, CheckState } from './handlers/operations.js';

const REPORT_REUSE_MS = 1000;
const PROCESSES_LISTED = 100;

export interface SystemStatusDeps {
  orm: Orm;
  schedulerQueues: SchedulerQueues;
  queue: { ping(): Promise<void> };
  bus: { ping(): Promise<void> };
  staleAfterMs: number;
  cadence: SchedulerCadence;
  components: readonly StatusComponent[];
  /** In onchain mode: the chain as the workers last stored it (src/domain/settlement/onchain/chain-status.ts). */
  chain?: () => Promise<NonNullable<SystemStatus['chain']>>;
  /** RESOLUTION_OVERDUE_AFTER_MS: a window with open positions still without an outcome this long after its end is late. */
  overdueAfterMs: number;
  log: Logger;
}

export interface SystemStatusSource {
  report(): Promise<SystemStatus>;
}

export function createSystemStatus(deps: SystemStatusDeps): SystemStatusSource {
  const { orm, schedulerQueues, log } = deps;
  let last: { at: number; report: Promise<SystemStatus> } | undefined;

  const workersOf = async (now: number): Promise<SystemStatus['workers']> => {
    let seen: Awaited<ReturnType<typeof recentHeartbeats>> = [];
    const state = await check(
      'workers',
      async () => {
        seen = await recentHeartbeats(orm.em.fork(), PROCESSES_LISTED);
        if (!seen.length) throw new CheckState('missing', 'no worker process has recorded a heartbeat');
        if (now - seen[0]!.lastSeenAtMs > deps.staleAfterMs) throw new CheckState('stale', `newest heartbeat from ${seen[0]!.workerId}`);
      },
      log,
    );
    const processes = seen.map((w) => ({
      worker_id: w.workerId,
      hostname: w.hostname,
      pid: w.pid,
      started_at_ms: w.startedAtMs,
      last_seen_ms: w.lastSeenAtMs,
      state: now - w.lastSeenAtMs > deps.staleAfterMs ? ('stale' as const) : ('ok' as const),
    }));
    return {
      state,
      alive: processes.filter((p) => p.state === 'ok').length,
      stale_after_ms: deps.staleAfterMs,
      newest_heartbeat_ms: processes[0]?.last_seen_ms ?? null,
      processes,
    };
  };

  const schedulersOf = () =>
    Promise.all(
      SCHEDULERS.map(async (s) => ({
        id: s.id,
        queue: s.queue,
        every_ms: deps.cadence[s.id] ?? s.everyMs,
        state: await check(
          `scheduler ${s.id}`,
          async () => {
            if (!(await schedulerQueues.get(s.queue).getJobScheduler(s.id))) throw new CheckState('missing', `job scheduler ${s.id} does not exist`);
          },
          log,
        ),
      })),
    );

  const queuesOf = async (): Promise<SystemStatus['queues']> => {
    const out: SystemStatus['queues'] = [];
    await check(
      'queue counts',
      async () => {
        for (const noun of Object.values(QUEUE)) {
          const c = await schedulerQueues.get(noun).getJobCounts('waiting', 'active', 'delayed', 'failed');
          out.push({ queue: noun, waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 });
        }
      },
      log,
    );
    return out.length === Object.values(QUEUE).length ? out : [];
  };

  const componentsOf = () =>
    Promise.all(
      deps.components.map(async (c) => {
        let health: Awaited<ReturnType<StatusComponent['check']>> = { state: 'ok' };
        const state = await check(
          `component ${c.name}`,
          async () => {
            health = await c.check();
          },
          log,
        );
        return {
          name: c.name,
          kind: c.kind,
          state: state === 'ok' ? health.state : state === 'timeout' ? ('timeout' as const) : ('failed' as const),
          detail: state === 'ok' ? (health.detail ?? null) : null,
        };
      }),
    );

  const waitingOf = async (): Promise<SystemStatus['operations_waiting']> => {
    let rows: Awaited<ReturnType<ReturnType<typeof systemRepository>['operationsWaiting']>> = [];
    await check(
      'operations waiting',
      async () => {
        rows = await systemRepository(db(orm.em.fork())).operationsWaiting();
      },
      log,
    );
    return rows.map((r) => ({
      pending_reason: r.pending_reason as SystemStatus['operations_waiting'][number]['pending_reason'],
      count: r.count,
      oldest_since_ms: r.oldest === null ? null : new Date(r.oldest).getTime(),
    }));
  };

  const resolutionOf = async (now: number): Promise<SystemStatus['resolution']> => {
    let backlog: ResolutionBacklog = { overdue: 0, oldestOverdueEndMs: null, disputed: 0 };
    const state = await check(
      'resolution backlog',
      async () => {
        backlog = await resolutionBacklog(orm.em.fork(), now, deps.overdueAfterMs);
      },
      log,
    );
    return {
      state,
      overdue_after_ms: deps.overdueAfterMs,
      overdue: backlog.overdue,
      oldest_overdue_end_ms: backlog.oldestOverdueEndMs,
      disputed: backlog.disputed,
    };
  };

  const build = async (): Promise<SystemStatus> => {
    const now = Date.now();
    const [database, queue, bus, workers, schedulers, queues, components, waiting, resolution, chain] = await Promise.all([
      check('database', () => systemRepository(db(orm.em.fork())).ping(), log),
      check('queue', () => deps.queue.ping(), log),
      check('bus', () => deps.bus.ping(), log),
      workersOf(now),
      schedulersOf(),
      queuesOf(),
      componentsOf(),
      waitingOf(),
      resolutionOf(now),
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
