// RFQ market windows (docs/trading.md, "Words": windows): one markets row per (asset, duration_secs, start_at_ms),
// numbered from market_id_seq. Rows are created ahead of time by the rollover job and on demand by reads;
// every creator runs insert ... on conflict do nothing and re-reads, so concurrent processes converge on
// one market_id per window.
import type { Em } from '../../db/orm.js';
import { NotFound, ValidationFailed } from '../errors.js';
import { bettingClosesAt, currentWindow, isAligned, windowsToPrepare } from './windows.js';
import { repos } from '../../db/repos.js';

export interface MarketSettings {
  assets: readonly string[];
  durations: readonly number[];
  bettingCloseBufferMs: number;
  lookupHorizonMs: number;
}

export interface MarketWindowRecord {
  marketId: number;
  asset: string;
  durationSecs: number;
  startAtMs: number;
  bettingClosesAtMs: number;
}

export interface WindowKey {
  asset: string;
  durationSecs: number;
  startAtMs: number;
}

function toRecord(
  r: { market_id: number; asset: string; duration_secs: number; start_at_ms: number },
  bufferMs: number,
): MarketWindowRecord {
  const durationSecs = r.duration_secs;
  const startAtMs = r.start_at_ms;
  return {
    marketId: r.market_id,
    asset: r.asset,
    durationSecs,
    startAtMs,
    bettingClosesAtMs: bettingClosesAt(startAtMs, durationSecs, bufferMs),
  };
}

/** Creates the windows that do not exist yet (idempotent); returns how many this call created. */
export async function ensureWindows(em: Em, keys: readonly WindowKey[]): Promise<number> {
  if (!keys.length) return 0;
  return (await repos(em).markets.insertWindows(keys)).length;
}

/**
 * Market ids of windows known to exist, per (asset, duration, window start). A window's row never changes once
 * created, and which window is current is a pure function of the clock, so a read whose window is cached runs
 * no SQL. One cache per running service (it belongs to one database); bounded, cleared when full.
 */
export class WindowCache {
  private readonly rows = new Map<string, MarketWindowRecord>();
  constructor(private readonly maxEntries = 10_000) {}

  get(key: WindowKey): MarketWindowRecord | undefined {
    return this.rows.get(cacheKey(key));
  }

  set(m: MarketWindowRecord): void {
    if (this.rows.size >= this.maxEntries) this.rows.clear();
    this.rows.set(cacheKey(m), m);
  }
}

const cacheKey = (k: WindowKey) => `${k.asset}/${k.durationSecs}/${k.startAtMs}`;

/** The entity manager, or a function that forks one: a cached window then never forks. */
export type EmSource = Em | (() => Em);
const emOf = (source: EmSource): Em => (typeof source === 'function' ? source() : source);

async function findWindow(source: EmSource, key: WindowKey, bufferMs: number, cache?: WindowCache): Promise<MarketWindowRecord | null> {
  const cached = cache?.get(key);
  if (cached) return cached;
  const row = await repos(emOf(source)).markets.findWindow(key);
  if (!row) return null;
  const record = toRecord(row, bufferMs);
  cache?.set(record);
  return record;
}

async function findOrCreateWindow(source: EmSource, key: WindowKey, bufferMs: number, cache?: WindowCache): Promise<MarketWindowRecord> {
  const existing = await findWindow(source, key, bufferMs, cache);
  if (existing) return existing;
  // First request for this window: the race-safe upsert, then the re-read every creator converges on.
  const em = emOf(source);
  await ensureWindows(em, [key]);
  const row = await findWindow(em, key, bufferMs, cache);
  if (!row) throw new Error(`market window ${key.asset}/${key.durationSecs}/${key.startAtMs} missing right after its upsert`);
  return row;
}

function requireOffered(s: MarketSettings, asset: string, durationSecs: number): void {
  const problems: string[] = [];
  if (!s.assets.includes(asset)) problems.push(`asset ${asset} is not offered (offered: ${s.assets.join(', ')})`);
  if (!s.durations.includes(durationSecs))
    problems.push(`duration_secs ${durationSecs} is not offered (offered: ${s.durations.join(', ')})`);
  if (problems.length) throw new NotFound('MARKET_NOT_FOUND', `no such market: ${problems.join('; ')}`);
}

/** The window takers should trade now (created on demand when the rollover has not yet). */
export async function getCurrentMarket(
  em: EmSource,
  s: MarketSettings,
  asset: string,
  durationSecs: number,
  nowMs = Date.now(),
  cache?: WindowCache,
): Promise<MarketWindowRecord> {
  requireOffered(s, asset, durationSecs);
  const { startAtMs } = currentWindow(nowMs, durationSecs, s.bettingCloseBufferMs);
  return findOrCreateWindow(em, { asset, durationSecs, startAtMs }, s.bettingCloseBufferMs, cache);
}

/**
 * The window starting at `startAtMs`. A window that exists is returned whenever it starts; one that was
 * never created is created on demand only within the horizon, now - lookupHorizonMs .. now + lookupHorizonMs,
 * else 404 MARKET_NOT_FOUND (so anonymous lookups cannot fill the table with windows back to 1970).
 */
export async function lookupMarket(
  em: EmSource,
  s: MarketSettings,
  asset: string,
  durationSecs: number,
  startAtMs: number,
  nowMs = Date.now(),
  cache?: WindowCache,
): Promise<MarketWindowRecord> {
  requireOffered(s, asset, durationSecs);
  const horizonEnd = nowMs + s.lookupHorizonMs;
  // Beyond 2^53 no window can be within the horizon, and the arithmetic below would be inexact.
  if (!Number.isSafeInteger(startAtMs)) throw beyondHorizon(horizonEnd);
  if (!isAligned(startAtMs, durationSecs)) {
    throw new ValidationFailed(
      `window_start_ms must be a multiple of duration_secs * 1000 (${durationSecs * 1000}); the window containing ${startAtMs} starts at ${startAtMs - (startAtMs % (durationSecs * 1000))}`,
      null,
      'WINDOW_NOT_ALIGNED',
    );
  }
  const key = { asset, durationSecs, startAtMs };
  const horizonStart = nowMs - s.lookupHorizonMs;
  if (startAtMs > horizonEnd || startAtMs < horizonStart) {
    const existing = await findWindow(em, key, s.bettingCloseBufferMs, cache);
    if (existing) return existing;
    throw startAtMs > horizonEnd ? beyondHorizon(horizonEnd) : beforeHorizon(horizonStart);
  }
  return findOrCreateWindow(em, key, s.bettingCloseBufferMs, cache);
}

function beforeHorizon(horizonStart: number): NotFound {
  return new NotFound(
    'MARKET_NOT_FOUND',
    `no such market: no window starting at that time was ever created, and windows starting before ${horizonStart} (now - the lookup horizon) are not created on demand`,
  );
}

function beyondHorizon(horizonEnd: number): NotFound {
  return new NotFound(
    'MARKET_NOT_FOUND',
    `no such market: windows starting after ${horizonEnd} (now + the lookup horizon) are not created on demand`,
  );
}

/** Rollover: ensures the current and the next window of every offered asset and duration exist. */
export async function rollWindows(em: Em, s: MarketSettings, nowMs = Date.now()): Promise<{ ensured: number; created: number }> {
  const keys: WindowKey[] = [];
  for (const durationSecs of s.durations) {
    for (const startAtMs of windowsToPrepare(nowMs, durationSecs, s.bettingCloseBufferMs)) {
      for (const asset of s.assets) keys.push({ asset, durationSecs, startAtMs });
    }
  }
  return { ensured: keys.length, created: await ensureWindows(em, keys) };
}
