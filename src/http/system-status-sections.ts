// The sections of the system status (src/http/system-status.ts): each reads one part of the whole-system view
// under its own check (a failing part is reported as such, the others still are).
import type { SystemStatus } from '../../generated/openapi/types.gen.js';
import type { SystemRepository } from '../db/repositories/system.repository.js';
import { recentHeartbeats } from '../domain/heartbeats.js';
import type { StatusComponent } from '../domain/status.js';
import { resolutionBacklog, type ResolutionBacklog } from '../domain/markets/resolution-backlog.js';
import { QUEUE } from '../jobs/queues.js';
import { SCHEDULERS } from '../jobs/schedulers.js';
import { check, CheckState } from './handlers/operations.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import type { SchedulerCadence, SchedulerQueues } from '../jobs/schedulers.js';
import { repos } from '../db/repos.js';

/** What the system status reads (createSystemStatus in src/http/system-status.ts). */
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

const PROCESSES_LISTED = 100;

export async function workersOf(deps: SystemStatusDeps, now: number): Promise<SystemStatus['workers']> {
  let seen: Awaited<ReturnType<typeof recentHeartbeats>> = [];
  const state = await check(
    'workers',
    async () => {
      seen = await recentHeartbeats(deps.orm.em.fork(), PROCESSES_LISTED);
      if (!seen.length) throw new CheckState('missing', 'no worker process has recorded a heartbeat');
      if (now - seen[0]!.lastSeenAtMs > deps.staleAfterMs) throw new CheckState('stale', `newest heartbeat from ${seen[0]!.workerId}`);
    },
    deps.log,
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
}

export function schedulersOf(deps: SystemStatusDeps) {
  return Promise.all(
    SCHEDULERS.map(async (s) => ({
      id: s.id,
      queue: s.queue,
      every_ms: deps.cadence[s.id] ?? s.everyMs,
      state: await check(
        `scheduler ${s.id}`,
        async () => {
          if (!(await deps.schedulerQueues.get(s.queue).getJobScheduler(s.id)))
            throw new CheckState('missing', `job scheduler ${s.id} does not exist`);
        },
        deps.log,
      ),
    })),
  );
}

export async function queuesOf(deps: SystemStatusDeps): Promise<SystemStatus['queues']> {
  const out: SystemStatus['queues'] = [];
  await check(
    'queue counts',
    async () => {
      for (const noun of Object.values(QUEUE)) {
        const c = await deps.schedulerQueues.get(noun).getJobCounts('waiting', 'active', 'delayed', 'failed');
        out.push({ queue: noun, waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 });
      }
    },
    deps.log,
  );
  return out.length === Object.values(QUEUE).length ? out : [];
}

export function componentsOf(deps: SystemStatusDeps) {
  return Promise.all(
    deps.components.map(async (c) => {
      let health: Awaited<ReturnType<StatusComponent['check']>> = { state: 'ok' };
      const state = await check(
        `component ${c.name}`,
        async () => {
          health = await c.check();
        },
        deps.log,
      );
      return {
        name: c.name,
        kind: c.kind,
        state: state === 'ok' ? health.state : state === 'timeout' ? ('timeout' as const) : ('failed' as const),
        detail: state === 'ok' ? (health.detail ?? null) : null,
      };
    }),
  );
}

export async function waitingOf(deps: SystemStatusDeps): Promise<SystemStatus['operations_waiting']> {
  let rows: Awaited<ReturnType<SystemRepository['operationsWaiting']>> = [];
  await check(
    'operations waiting',
    async () => {
      rows = await repos(deps.orm.em.fork()).system.operationsWaiting();
    },
    deps.log,
  );
  return rows.map((r) => ({
    pending_reason: r.pending_reason as SystemStatus['operations_waiting'][number]['pending_reason'],
    count: r.count,
    oldest_since_ms: r.oldest === null ? null : new Date(r.oldest).getTime(),
  }));
}

export async function resolutionOf(deps: SystemStatusDeps, now: number): Promise<SystemStatus['resolution']> {
  let backlog: ResolutionBacklog = { overdue: 0, oldestOverdueEndMs: null, disputed: 0 };
  const state = await check(
    'resolution backlog',
    async () => {
      backlog = await resolutionBacklog(deps.orm.em.fork(), now, deps.overdueAfterMs);
    },
    deps.log,
  );
  return {
    state,
    overdue_after_ms: deps.overdueAfterMs,
    overdue: backlog.overdue,
    oldest_overdue_end_ms: backlog.oldestOverdueEndMs,
    disputed: backlog.disputed,
  };
}
