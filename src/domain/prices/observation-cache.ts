// The observations fetched per (source, asset, boundary), kept in price_observations and shared by every
// process (read.ts, "One fetch per boundary"): window N's close is window N+1's open, and a 60 s window's
// boundary is a 300 s window's too. Only observations are kept, never an abstention; the first one kept
// stays. The probe job prunes rows older than OBSERVATION_RETENTION_MS.
import type { Em } from '../../db/orm.js';
import type { ObservationCache } from './read.js';
import { repos } from '../../db/repos.js';

export const OBSERVATION_RETENTION_MS = 86_400_000;

export function databaseObservationCache(forkEm: () => Em, now: () => number = Date.now): ObservationCache {
  return {
    async get(source, asset, atMs) {
      const r = await repos(forkEm()).priceSources.observation(source, asset, atMs);
      if (!r) return null;
      return {
        priceMicros: r.priceMicros,
        observedAtMs: r.observedAtMs,
        ...(r.ref !== null ? { sourceRef: r.ref } : {}),
        ...(r.confidenceMicros !== null ? { confidenceMicros: r.confidenceMicros } : {}),
      };
    },
    put: (source, asset, atMs, o) =>
      repos(forkEm()).priceSources.putObservation(
        source,
        asset,
        atMs,
        {
          priceMicros: o.priceMicros,
          observedAtMs: o.observedAtMs,
          ref: o.sourceRef ?? null,
          confidenceMicros: o.confidenceMicros ?? null,
        },
        now(),
      ),
  };
}

/** Deletes observations older than the retention; how many (at most `limit` per call). */
export function pruneObservations(em: Em, nowMs: number, limit = 10_000): Promise<number> {
  return repos(em).priceSources.pruneObservations(nowMs - OBSERVATION_RETENTION_MS, limit);
}
