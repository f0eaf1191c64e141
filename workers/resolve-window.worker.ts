// Processor of the `market-resolution` queue (docs/trading.md, "Resolution and settlement").
//   relay-window-resolutions (scheduled): enqueues every window that ended RESOLUTION_DELAY_MS ago and still
//     has pending legs (a lost job, a crash mid-settlement, an operator's override whose enqueue failed).
//   resolve-window (jobId = window-<market id>): reads the open and close prices from every PRICE_FEED source
//     outside any transaction and records the outcome a quorum agrees on, with every reading (first writer
//     wins: an operator's override stands; docs/prices.md); too few readings yet -> throw, BullMQ retries;
//     still too few by end + RESOLUTION_MAX_WAIT_MS, or sources disagreeing -> DISPUTED (the job completes;
//     the operator's resolution enqueues it again, and so does the relay once the dispute's deadline passed,
//     which voids the window). Then
//     settles the window's positions in batches, publishing position_settled to the makers after each batch
//     commits. Idempotent: only pending legs and open positions are touched.
import { UnrecoverableError } from 'bullmq';
import { windowsAwaitingResolution } from '../src/domain/markets/window-resolution.js';
import { resolveWindowFromFeed } from '../src/domain/markets/window-feed.js';
import { recordSourceHealth } from '../src/domain/prices/health.js';
import { createPriceQuorum } from '../src/domain/prices/create.js';
import { rfqDepsOf } from '../src/domain/rfq/deps.js';
import { createRfqLifecycle } from '../src/trading/rfq-lifecycle.js';
import { createWindowResolutionProducer } from '../src/jobs/window-resolution-producer.js';
import { JOB, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const resolveWindowWorker: WorkerSpec<typeof QUEUE.marketResolution> = {
  concurrency: (kind) => (kind === 'pglite' ? 1 : 4),
  processor: ({ rt, log }) => {
    const { orm, config, bus } = rt;
    const feed = createPriceQuorum(config.prices);
    if (config.nodeEnv === 'production' && feed.rule.sources.includes('demo')) {
      log.warn('PRICE_FEED lists demo in production (ALLOW_DEMO_PRICES=true): RFQ windows resolve from the deterministic demo prices');
    }
    const onHealth = (samples: Parameters<typeof recordSourceHealth>[1]) =>
      recordSourceHealth(orm.em.fork(), samples).catch((err: unknown) => log.warn({ err }, 'could not record the price sources health'));
    const producer = createWindowResolutionProducer(rt.queues);
    const trading = createRfqLifecycle({ forkDb: () => orm.em.fork(), bus, rfq: rfqDepsOf(config), log });
    return {
      async process(job) {
        if (job.name === JOB.relayWindowResolutions) {
          const ids = await windowsAwaitingResolution(orm.em.fork(), Date.now(), config.resolution.delayMs);
          for (const id of ids) await producer.enqueue(id);
          if (ids.length) log.info({ windows: ids.length }, 'window-resolution relay enqueued ended windows with open legs');
          return { relayed: ids.length };
        }
        const marketId = job.data.market_id;
        const started = Date.now();
        const r = await resolveWindowFromFeed(orm.em.fork(), feed, marketId, {
          nowMs: started,
          maxWaitMs: config.resolution.maxWaitMs,
          disputeVoidAfterMs: config.resolution.disputeVoidAfterMs,
          onHealth,
        });
        if (r.kind === 'missing') throw new UnrecoverableError(`market ${marketId} is not an RFQ window`);
        if (r.kind === 'disputed') {
          if (r.recorded)
            log.warn({ market_id: marketId, reason: r.reason, void_at_ms: r.voidAtMs }, 'RFQ window DISPUTED: the operator resolves it');
          return { disputed: r.reason, void_at_ms: r.voidAtMs };
        }
        if (r.kind !== 'resolved')
          throw new Error(`window ${marketId}: ${r.kind === 'not_ended' ? 'has not ended yet' : 'too few price readings yet'}; retrying`);
        if (r.recorded) log.info({ market_id: marketId, outcome: r.outcome }, 'RFQ window resolved');
        const total = await trading.settle(marketId, r.outcome, Date.now());
        log.info({ job_id: job.id, market_id: marketId, outcome: r.outcome, ...total, ms: Date.now() - started }, 'RFQ window settled');
        return { outcome: r.outcome, ...total };
      },
      close: () => producer.close(),
    };
  },
};
