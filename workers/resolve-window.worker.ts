// Processor of the `market-resolution` queue (docs/trading.md, "Resolution and settlement"; docs/prices.md).
//   relay-window-resolutions (scheduled): enqueues every window that ended RESOLUTION_DELAY_MS ago and still
//     has pending legs (a lost job, a crash mid-settlement, an operator's override whose enqueue failed).
//   probe-price-sources (scheduled, PRICE_PROBE_EVERY_MS): one cheap documented request per price source and
//     offered asset; records each source's state (ok, failing, blocked), logs each change with its fix, and
//     prunes the observations kept for one fetch per boundary (src/jobs/price-probes.ts).
//   resolve-window (jobId = window-<market id>): reads the open and close prices from every PRICE_FEED source
//     outside any transaction (each boundary fetched once for every window and process, a blocked source not
//     asked, a banned one held back by the shared circuit until its Retry-After) and records the outcome a
//     quorum agrees on, with every reading (first writer wins: an operator's override stands); too few
//     readings yet -> throw, BullMQ retries; still too few by end + RESOLUTION_MAX_WAIT_MS (or nothing more
//     can come), or sources disagreeing -> DISPUTED (the job completes; the operator's resolution enqueues it
//     again, and so does the relay once the dispute's deadline passed, which voids the window). Then settles
//     the window's positions in batches, publishing position_settled to the makers after each batch commits.
//     Idempotent: only pending legs and open positions are touched.
import { UnrecoverableError } from 'bullmq';
import { windowsAwaitingResolution } from '../src/domain/markets/window-resolution.js';
import { resolveWindowFromFeed } from '../src/domain/markets/window-feed.js';
import { blockedLookup, recordSourceHealth } from '../src/domain/prices/health.js';
import { createPriceQuorum } from '../src/domain/prices/create.js';
import { databaseObservationCache } from '../src/domain/prices/observation-cache.js';
import { rfqDepsOf } from '../src/domain/rfq/deps.js';
import { createRfqLifecycle } from '../src/trading/rfq-lifecycle.js';
import { createPriceCircuit } from '../src/jobs/price-circuit.js';
import { probeJob } from '../src/jobs/price-probes.js';
import { createWindowResolutionProducer } from '../src/jobs/window-resolution-producer.js';
import { JOB, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const resolveWindowWorker: WorkerSpec<typeof QUEUE.marketResolution> = {
  concurrency: (kind) => (kind === 'pglite' ? 1 : 4),
  processor: ({ rt, log }) => {
    const { orm, config, bus } = rt;
    const forkEm = () => orm.em.fork();
    const circuit = createPriceCircuit({ redisUrl: config.redisUrl, prefix: config.queuePrefix, forkEm });
    const feed = createPriceQuorum(config.prices, {
      circuit: circuit.circuit,
      cache: databaseObservationCache(forkEm),
      blocked: blockedLookup(forkEm),
    });
    if (config.nodeEnv === 'production' && feed.rule.sources.includes('demo')) {
      log.warn('PRICE_FEED lists demo in production (ALLOW_DEMO_PRICES=true): RFQ windows resolve from the deterministic demo prices');
    }
    const onHealth = (samples: Parameters<typeof recordSourceHealth>[1]) =>
      recordSourceHealth(forkEm(), samples).catch((err: unknown) => log.warn({ err }, 'could not record the price sources health'));
    const producer = createWindowResolutionProducer(rt.queues);
    const trading = createRfqLifecycle({ forkDb: forkEm, bus, rfq: rfqDepsOf(config), log });
    const probeDeps = { forkEm, feeds: feed.feeds, assets: config.markets.assets, quorum: config.prices.quorum, log };
    return {
      async process(job) {
        if (job.name === JOB.relayWindowResolutions) {
          const ids = await windowsAwaitingResolution(forkEm(), Date.now(), config.resolution.delayMs);
          for (const id of ids) await producer.enqueue(id);
          if (ids.length) log.info({ windows: ids.length }, 'window-resolution relay enqueued ended windows with open legs');
          return { relayed: ids.length };
        }
        if (job.name === JOB.probePriceSources) return probeJob(probeDeps);
        const marketId = job.data.market_id;
        const started = Date.now();
        const r = await resolveWindowFromFeed(forkEm(), feed, marketId, {
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
      close: async () => {
        await producer.close();
        await circuit.close();
      },
    };
  },
};
