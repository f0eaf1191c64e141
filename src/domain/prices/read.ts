// Reads the open and close of a window from every listed source at once (docs/prices.md): a source that
// fails, stalls or answers nonsense gives no reading and never stops the others. Each source's requests,
// failures and latency are reported for /readyz and /metrics (price_source_health).
import type { HealthSample } from '../../db/repositories/prices.repository.js';
import type { PriceFeed, PriceObservation } from './feed.js';
import type { QuorumRule, SourceReading } from './quorum.js';

export interface QuorumFeed {
  rule: QuorumRule;
  /** Every listed source's readings at `startMs` and `endMs`, and what the requests cost. */
  read(asset: string, startMs: number, endMs: number): Promise<{ readings: SourceReading[]; health: HealthSample[] }>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

export function createQuorumFeed(feeds: readonly PriceFeed[], quorum: number, maxAgeMs: number, now: () => number = Date.now): QuorumFeed {
  const rule: QuorumRule = { sources: feeds.map((f) => f.source), quorum, maxAgeMs };
  return {
    rule,
    async read(asset, startMs, endMs) {
      const results = await Promise.all(
        feeds.map(async (feed) => {
          let failures = 0;
          let error: string | null = null;
          let latencyMs = 0;
          const one = async (ts: number): Promise<PriceObservation | null> => {
            const t0 = performance.now();
            try {
              return await feed.priceAt(asset, ts);
            } catch (err) {
              failures++;
              error = message(err);
              return null;
            } finally {
              latencyMs += performance.now() - t0;
            }
          };
          const [open, close] = await Promise.all([one(startMs), one(endMs)]);
          const reading: SourceReading = { source: feed.source, open, close, ...(error ? { error } : {}) };
          const sample: HealthSample = { source: feed.source, requests: 2, failures, latencyMs, atMs: now(), error };
          return { reading, sample };
        }),
      );
      return { readings: results.map((r) => r.reading), health: results.map((r) => r.sample) };
    },
  };
}
