// Processor of the `market-resolution` queue (docs/trading.md, "Resolution and settlement").
//   relay-window-resolutions (scheduled): enqueues every window that ended RESOLUTION_DELAY_MS ago and still
//     has pending legs (a lost job, a crash mid-settlement, an operator's override whose enqueue failed).
//   resolve-window (jobId = window-<market id>): reads the open and close prices from the feed outside any
//     transaction and records the outcome (first writer wins: an operator's override stands); no price yet
//     -> throw, BullMQ retries; none by end + RESOLUTION_MAX_WAIT_MS -> VOID (refunds). Then settles the
//     window's positions in batches, publishing position_settled to the makers after each batch commits.
//     Idempotent: only pending legs and open positions are touched.
import { UnrecoverableError } from 'bullmq';
import { resolveWindowFromFeed, windowsAwaitingResolution } from '../src/domain/markets/window-resolution.js';
import { settleWindow } from '../src/domain/positions/settle.js';
import { createPriceFeed } from '../src/domain/prices/create.js';
import { publishRfqEvents } from '../src/bus/rfq-events.js';
import { createWindowResolutionProducer } from '../src/jobs/window-resolution-producer.js';
import { JOB, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const resolveWindowWorker: WorkerSpec<typeof QUEUE.marketResolution> = {
  concurrency: (kind) => (kind === 'pglite' ? 1 : 4),
  processor: ({ rt, log }) => {
    const { orm, config, bus } = rt;
    const feed = createPriceFeed(config.prices);
    if (config.nodeEnv === 'production' && feed.source === 'demo') {
      log.warn('PRICE_FEED=demo in production: RFQ windows resolve from the deterministic demo prices, not a market price');
    }
    const producer = createWindowResolutionProducer(rt.queues);
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
        const r = await resolveWindowFromFeed(orm.em.fork(), feed, marketId, { nowMs: started, maxWaitMs: config.resolution.maxWaitMs });
        if (r.kind === 'missing') throw new UnrecoverableError(`market ${marketId} is not an RFQ window`);
        if (r.kind !== 'resolved')
          throw new Error(`window ${marketId}: ${r.kind === 'not_ended' ? 'has not ended yet' : 'no price from the feed yet'}; retrying`);
        if (r.recorded) log.info({ market_id: marketId, outcome: r.outcome, source: feed.source }, 'RFQ window resolved');
        const total = await settleWindow(orm.em.fork(), marketId, r.outcome, Date.now(), {
          onBatch: (b) => publishRfqEvents(bus, b.events, log),
        });
        log.info({ job_id: job.id, market_id: marketId, outcome: r.outcome, ...total, ms: Date.now() - started }, 'RFQ window settled');
        return { outcome: r.outcome, ...total };
      },
      close: () => producer.close(),
    };
  },
};
