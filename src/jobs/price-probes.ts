// The price sources' probes, run by the `probe-price-sources` job every PRICE_PROBE_EVERY_MS and by every
// process at start-up (src/process.ts): one cheap documented request per source and asset
// (src/domain/prices/probe.ts), recorded as each source's state, with a log line whenever a state changes
// (a `blocked` one names the fix). The start-up run also checks the listing: every offered asset must be
// listed by at least PRICE_QUORUM sources, or NODE_ENV=production refuses to start.
import type { Config } from '../config/types.js';
import type { Em } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { createPriceFeeds } from '../domain/prices/create.js';
import type { PriceFeed } from '../domain/prices/feed.js';
import { fixFor, sourceStatuses } from '../domain/prices/health.js';
import { pruneObservations } from '../domain/prices/observation-cache.js';
import { listingProblems, probeSources, recordProbes, type ProbeOutcome } from '../domain/prices/probe.js';
import { createPriceCircuit } from './price-circuit.js';

export interface PriceProbeDeps {
  forkEm: () => Em;
  feeds: readonly PriceFeed[];
  assets: readonly string[];
  quorum: number;
  log: Logger;
}

/** Probes every source, records the states, logs each change; returns the outcomes and the listing problems. */
export async function runPriceProbes(deps: PriceProbeDeps): Promise<{ outcomes: ProbeOutcome[]; problems: string[] }> {
  const sources = deps.feeds.map((f) => f.source);
  const before = await sourceStatuses(deps.forkEm(), sources, Date.now());
  const outcomes = await probeSources(deps.feeds, deps.assets);
  await recordProbes(deps.forkEm(), outcomes, Date.now());
  for (const o of outcomes) {
    const was = before.find((b) => b.source === o.source)?.state;
    if (o.state === null || o.state === was) continue;
    if (o.state === 'ok') deps.log.info({ source: o.source, listed: o.listed, was }, `price source ${o.source} is ok`);
    else {
      const fix = fixFor(o.source, o.state, null);
      deps.log.warn(
        { source: o.source, state: o.state, reason: o.reason, detail: o.detail, fix, was },
        `price source ${o.source} is ${o.state}${fix ? `: ${fix}` : ''}`,
      );
    }
  }
  return { outcomes, problems: listingProblems(deps.feeds, outcomes, deps.assets, deps.quorum) };
}

/** The job: probes, then prunes the observations past their retention. */
export async function probeJob(deps: PriceProbeDeps): Promise<{ states: Record<string, string>; pruned: number }> {
  const { outcomes, problems } = await runPriceProbes(deps);
  if (problems.length) deps.log.warn({ problems }, 'offered assets listed by fewer price sources than PRICE_QUORUM');
  const pruned = await pruneObservations(deps.forkEm(), Date.now());
  return { states: Object.fromEntries(outcomes.map((o) => [o.source, o.state ?? 'held back by its circuit'])), pruned };
}

/** The start-up run of a process: the listing problems (production refuses to start on any). */
export async function checkPriceSourcesAtStart(config: Readonly<Config>, forkEm: () => Em, log: Logger): Promise<string[]> {
  const circuit = createPriceCircuit({ redisUrl: config.redisUrl, prefix: config.queuePrefix, forkEm });
  try {
    const feeds = createPriceFeeds(config.prices, { circuit: circuit.circuit });
    const { problems } = await runPriceProbes({ forkEm, feeds, assets: config.markets.assets, quorum: config.prices.quorum, log });
    return problems;
  } finally {
    await circuit.close();
  }
}
