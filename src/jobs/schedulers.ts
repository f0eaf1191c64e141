// Every BullMQ job scheduler of the service in one list: the workers create them (and re-create them when
// they go missing, e.g. Redis restarted empty), and /readyz checks that each one exists.
import type { Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import type { ScheduledJobName } from './job-table.js';
import type { QueueBackend } from './queue-backend.js';
import {
  DEPOSIT_SCAN_EVERY_MS,
  RECONCILE_CHAIN_EVERY_MS,
  HEARTBEAT_EVERY_MS,
  JOB,
  PROBE_PRICE_SOURCES_EVERY_MS,
  PRUNE_AUTH_EVERY_MS,
  PRUNE_USER_EVENTS_EVERY_MS,
  PRUNE_IDEMPOTENCY_EVERY_MS,
  QUEUE,
  RELAY_OUTBOX_EVERY_MS,
  RELAY_RESOLUTIONS_EVERY_MS,
  RELAY_WINDOW_RESOLUTIONS_EVERY_MS,
  RFQ_SWEEP_EVERY_MS,
  ROLL_WINDOWS_EVERY_MS,
  type QueueNoun,
} from './queues.js';

/** A scheduler adds, every `everyMs`, a job of its queue whose payload is only the tick's time (job-table.ts). */
export type SchedulerSpec = { [Q in QueueNoun]: { queue: Q; id: string; everyMs: number; jobName: ScheduledJobName<Q> } }[QueueNoun];

export const SCHEDULERS: readonly SchedulerSpec[] = [
  { queue: QUEUE.system, id: 'heartbeat', everyMs: HEARTBEAT_EVERY_MS, jobName: JOB.recordHeartbeat },
  { queue: QUEUE.marketWindows, id: 'roll-windows', everyMs: ROLL_WINDOWS_EVERY_MS, jobName: JOB.rollWindows },
  { queue: QUEUE.settlement, id: 'relay-outbox', everyMs: RELAY_OUTBOX_EVERY_MS, jobName: JOB.relayOutbox },
  { queue: QUEUE.idempotency, id: 'prune-idempotency-keys', everyMs: PRUNE_IDEMPOTENCY_EVERY_MS, jobName: JOB.pruneIdempotencyKeys },
  { queue: QUEUE.contests, id: 'relay-resolutions', everyMs: RELAY_RESOLUTIONS_EVERY_MS, jobName: JOB.relayResolutions },
  { queue: QUEUE.housekeeping, id: 'prune-expired-auth', everyMs: PRUNE_AUTH_EVERY_MS, jobName: JOB.pruneExpiredAuth },
  { queue: QUEUE.housekeeping, id: 'prune-user-events', everyMs: PRUNE_USER_EVENTS_EVERY_MS, jobName: JOB.pruneUserEvents },
  {
    queue: QUEUE.marketResolution,
    id: 'relay-window-resolutions',
    everyMs: RELAY_WINDOW_RESOLUTIONS_EVERY_MS,
    jobName: JOB.relayWindowResolutions,
  },
  { queue: QUEUE.marketResolution, id: 'probe-price-sources', everyMs: PROBE_PRICE_SOURCES_EVERY_MS, jobName: JOB.probePriceSources },
  { queue: QUEUE.rfq, id: 'sweep-rfqs', everyMs: RFQ_SWEEP_EVERY_MS, jobName: JOB.sweepRfqs },
  { queue: QUEUE.chainDeposits, id: 'scan-deposits', everyMs: DEPOSIT_SCAN_EVERY_MS, jobName: JOB.scanDeposits },
  { queue: QUEUE.chainDeposits, id: 'sweep-deposits', everyMs: DEPOSIT_SCAN_EVERY_MS, jobName: JOB.sweepDeposits },
  { queue: QUEUE.chainDeposits, id: 'cold-sweep', everyMs: DEPOSIT_SCAN_EVERY_MS, jobName: JOB.coldSweep },
  { queue: QUEUE.chainDeposits, id: 'reconcile-chain', everyMs: RECONCILE_CHAIN_EVERY_MS, jobName: JOB.reconcileChain },
];

/** Cadences set by configuration (scheduler id -> every ms), e.g. `sweep-rfqs` from RFQ_SWEEP_EVERY_MS. */
export type SchedulerCadence = Readonly<Record<string, number>>;

/** One Queue per noun the schedulers use, opened lazily, closed together. */
export class SchedulerQueues {
  private readonly queues = new Map<string, Queue>();
  constructor(private readonly backend: QueueBackend) {}

  get(noun: string): Queue {
    let q = this.queues.get(noun);
    if (!q) {
      q = new this.backend.Queue(this.backend.queueName(noun), { connection: this.backend.connection });
      this.queues.set(noun, q);
    }
    return q;
  }

  /** Ids of the schedulers that do not exist on the backend. */
  async missing(): Promise<string[]> {
    const found = await Promise.all(SCHEDULERS.map(async (s) => ((await this.get(s.queue).getJobScheduler(s.id)) ? null : s.id)));
    return found.filter((id): id is string => id !== null);
  }

  async upsert(s: SchedulerSpec, cadence: SchedulerCadence = {}): Promise<void> {
    await this.get(s.queue).upsertJobScheduler(
      s.id,
      { every: cadence[s.id] ?? s.everyMs },
      { name: s.jobName, data: { requested_at_ms: Date.now() }, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

export interface SchedulerKeeper {
  close(): Promise<void>;
}

/**
 * Creates every scheduler now, then re-creates any that went missing: when the queue connection comes back
 * (Redis restarted, maybe empty) and every `checkEveryMs` (a restart that the connection never noticed).
 * upsertJobScheduler is idempotent; only missing ones are upserted, so the running cadence is untouched.
 */
export async function startSchedulerKeeper(
  backend: QueueBackend,
  log: Logger,
  checkEveryMs: number,
  cadence: SchedulerCadence = {},
): Promise<SchedulerKeeper> {
  const queues = new SchedulerQueues(backend);
  for (const s of SCHEDULERS) await queues.upsert(s, cadence);
  let running: Promise<void> | null = null;
  let closed = false;
  const check = (reason: string) => {
    if (running || closed) return;
    running = (async () => {
      try {
        const missing = await queues.missing();
        for (const id of missing)
          await queues.upsert(
            SCHEDULERS.find((s) => s.id === id)!,
            cadence,
          );
        if (missing.length) log.warn({ schedulers: missing, reason }, 'job schedulers were missing and have been re-created');
      } catch (err) {
        log.warn({ err, reason }, 'job scheduler check failed; retrying on the next tick');
      } finally {
        running = null;
      }
    })();
  };
  backend.onReconnect(() => check('reconnected'));
  const timer = setInterval(() => check('periodic'), checkEveryMs);
  timer.unref();
  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
      await queues.close();
    },
  };
}
