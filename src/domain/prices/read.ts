// Reads the open and close of a window from every listed source at once (docs/prices.md): a source that
// fails, stalls or answers nonsense gives no reading, with its reason code, and never stops the others.
// One fetch per boundary: an observation is asked once per (source, asset, time) and kept (`cache`, the
// price_observations table shared by every process), so window N's close is window N+1's open, and two jobs
// asking for it at once in one process share the request. A source found `blocked` (HTTP 451/403/401) is
// not asked at all until the schedule's next probe clears it (`blocked`). Each source's requests, failures
// and latency are reported for /readyz and /metrics (price_source_health).
import type { HealthSample } from '../../db/repositories/prices.repository.js';
import type { PriceFeed, PriceObservation } from './feed.js';
import { sameAge, type QuorumRule, type SourceReading } from './quorum.js';
import { detailOf, reasonOf, type AbstainReason } from '../../adapters/prices/reasons.js';

export interface QuorumFeed {
  rule: QuorumRule;
  feeds: readonly PriceFeed[];
  /** Every listed source's readings at `startMs` and `endMs`, and what the requests cost. */
  read(asset: string, startMs: number, endMs: number): Promise<{ readings: SourceReading[]; health: HealthSample[] }>;
}

/** Observations already fetched, shared by every process (observation-cache.ts); a failing cache is skipped. */
export interface ObservationCache {
  get(source: string, asset: string, atMs: number): Promise<PriceObservation | null>;
  put(source: string, asset: string, atMs: number, obs: PriceObservation): Promise<void>;
}

export interface QuorumFeedOptions {
  now?: () => number;
  cache?: ObservationCache;
  /** Whether the source is known to refuse this deployment (its probe's `blocked` state): then it is not asked. */
  blocked?: (source: string) => Promise<string | null>;
}

/** Reasons that mean the source failed (counted in price_source_failures_total); the others are answers. */
const FAILURES: ReadonlySet<AbstainReason> = new Set([
  'blocked',
  'rate_limited',
  'banned',
  'timeout',
  'unreachable',
  'malformed_answer',
  'source_error',
]);

type Side = { obs: PriceObservation | null; reason?: AbstainReason; error?: string; requested: boolean; failed: boolean };

export function createQuorumFeed(
  feeds: readonly PriceFeed[],
  quorum: number,
  maxAgeMs: number | Readonly<Record<string, number>>,
  opts: QuorumFeedOptions = {},
): QuorumFeed {
  const sources = feeds.map((f) => f.source);
  const rule: QuorumRule = { sources, quorum, maxAgeMs: typeof maxAgeMs === 'number' ? sameAge(sources, maxAgeMs) : maxAgeMs };
  const now = opts.now ?? Date.now;
  const inflight = new Map<string, Promise<Side>>();

  const fetchSide = async (feed: PriceFeed, asset: string, ts: number): Promise<Side> => {
    const cached = await opts.cache?.get(feed.source, asset, ts).catch(() => null);
    if (cached) return { obs: cached, requested: false, failed: false };
    try {
      const obs = await feed.priceAt(asset, ts);
      if (obs) await opts.cache?.put(feed.source, asset, ts, obs).catch(() => undefined);
      return obs ? { obs, requested: true, failed: false } : { obs, reason: 'no_observation', requested: true, failed: false };
    } catch (err) {
      const reason = reasonOf(err);
      return { obs: null, reason, error: detailOf(err), requested: true, failed: FAILURES.has(reason) };
    }
  };
  const side = (feed: PriceFeed, asset: string, ts: number): Promise<Side> => {
    const key = `${feed.source}|${asset}|${ts}`;
    let p = inflight.get(key);
    if (!p) {
      p = fetchSide(feed, asset, ts).finally(() => inflight.delete(key));
      inflight.set(key, p);
    }
    return p;
  };

  const readOne = async (feed: PriceFeed, asset: string, startMs: number, endMs: number) => {
    const blockedDetail = await opts.blocked?.(feed.source).catch(() => null);
    if (blockedDetail) {
      const reading: SourceReading = { source: feed.source, open: null, close: null, reason: 'blocked', error: blockedDetail };
      const sample: HealthSample = { source: feed.source, requests: 0, failures: 0, latencyMs: 0, atMs: now(), error: null };
      return { reading, sample };
    }
    const t0 = performance.now();
    const [open, close] = await Promise.all([side(feed, asset, startMs), side(feed, asset, endMs)]);
    const failed = [open, close].filter((s) => s.failed);
    const reason = open.reason ?? close.reason;
    const error = open.error ?? close.error;
    const reading: SourceReading = {
      source: feed.source,
      open: open.obs,
      close: close.obs,
      ...(reason ? { reason } : {}),
      ...(error ? { error } : {}),
    };
    const sample: HealthSample = {
      source: feed.source,
      requests: [open, close].filter((s) => s.requested).length,
      failures: failed.length,
      latencyMs: performance.now() - t0,
      atMs: now(),
      error: failed[0]?.error ?? null,
      ...(failed.some((s) => s.reason === 'blocked') ? { blocked: failed.find((s) => s.reason === 'blocked')!.error ?? 'blocked' } : {}),
    };
    return { reading, sample };
  };

  return {
    rule,
    feeds,
    async read(asset, startMs, endMs) {
      const results = await Promise.all(feeds.map((feed) => readOne(feed, asset, startMs, endMs)));
      return { readings: results.map((r) => r.reading), health: results.map((r) => r.sample) };
    },
  };
}
