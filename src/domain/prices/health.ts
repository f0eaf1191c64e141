// Each price source's health and state (docs/prices.md, "Health"), from price_source_health, so any process
// reports every source. The workers add what every resolution attempt's requests cost; the probes
// (probe.ts, at start-up and every PRICE_PROBE_EVERY_MS) set its state; any process opens its circuit.
// A source is `ok` only after a probe's successful answer: `unknown` before its first probe, `failing`
// (unreachable, erroring, listing none of the offered assets), `blocked` (451/403/401: with the fix), and
// `banned` / `rate_limited` while its circuit is open (until its Retry-After passed).
import type { Em } from '../../db/orm.js';
import { type HealthSample } from '../../db/repositories/prices.repository.js';
import { repos } from '../../db/repos.js';

export type SourceState = 'unknown' | 'ok' | 'failing' | 'blocked' | 'banned' | 'rate_limited';

export interface SourceHealth {
  source: string;
  lastSuccessAtMs: number | null;
  lastFailureAtMs: number | null;
  requests: number;
  failures: number;
  latencyMsTotal: number;
}

export interface SourceStatus {
  source: string;
  state: SourceState;
  /** Why it is not ok: a reason code (src/adapters/prices/reasons.ts). */
  reason: string | null;
  /** What the last probe or request saw, URLs removed. */
  detail: string | null;
  /** What an operator does about it (blocked: the setting to change). */
  fix: string | null;
  /** While its circuit is open: when requests resume, Unix ms. */
  retryAtMs: number | null;
  /** The last probe, and the last one that succeeded, Unix ms. */
  checkedAtMs: number | null;
  okAtMs: number | null;
  lastSuccessAtMs: number | null;
  lastFailureAtMs: number | null;
  listed: string[];
  unlisted: string[];
}

export function recordSourceHealth(em: Em, samples: HealthSample[]): Promise<void> {
  return repos(em).prices.addHealth(samples);
}

export async function sourceHealth(em: Em): Promise<SourceHealth[]> {
  const rows = await repos(em).prices.health();
  return rows.map((r) => ({
    source: r.source,
    lastSuccessAtMs: r.last_success_at_ms,
    lastFailureAtMs: r.last_failure_at_ms,
    requests: r.requests,
    failures: r.failures,
    latencyMsTotal: r.latency_ms_total,
  }));
}

const BLOCKED_FIX: Readonly<Record<string, string>> = {
  binance:
    'Binance refuses this region or network (api.binance.com answers 451 in the United States and from US cloud regions): set BINANCE_API_URL=https://data-api.binance.vision (Binance market data only), or run the workers where Binance serves',
  pyth: 'Hermes wants a Pyth API key: set PYTH_API_KEY (sent as Authorization: Bearer), or point PYTH_API_URL at a Hermes that answers this deployment',
  okx: 'OKX refuses this region or network: run the workers where OKX serves, or drop okx from PRICE_FEED',
  coinbase: 'Coinbase Exchange refuses this network: check COINBASE_API_URL and the outbound address, or drop coinbase from PRICE_FEED',
};

/** The operator's remedy for a source's state, or null when there is nothing to do but wait. */
export function fixFor(source: string, state: SourceState, retryAtMs: number | null): string | null {
  if (state === 'blocked') return BLOCKED_FIX[source] ?? `${source} refuses this deployment: check its URL, key and region`;
  if ((state === 'banned' || state === 'rate_limited') && retryAtMs !== null) {
    return `no request is sent to ${source} before ${new Date(retryAtMs).toISOString()} (its Retry-After); if it recurs, send fewer requests (fewer workers, a longer PRICE_PROBE_EVERY_MS)`;
  }
  return null;
}

/** The state of each listed source at `nowMs` (a source without a row is `unknown`). */
export async function sourceStatuses(em: Em, sources: readonly string[], nowMs: number): Promise<SourceStatus[]> {
  const rows = await repos(em).prices.health();
  return sources.map((source) => {
    const r = rows.find((x) => x.source === source);
    const circuitOpen = r?.circuit_until_ms != null && r.circuit_until_ms > nowMs;
    const state: SourceState = circuitOpen
      ? r!.circuit_reason === 'banned'
        ? 'banned'
        : r!.circuit_reason === 'rate_limited'
          ? 'rate_limited'
          : 'failing'
      : r?.state === 'ok' || r?.state === 'failing' || r?.state === 'blocked'
        ? r.state
        : 'unknown';
    const retryAtMs = circuitOpen ? r!.circuit_until_ms : null;
    const split = (v: string | null | undefined) => (v ? v.split(',').filter(Boolean) : []);
    return {
      source,
      state,
      reason: circuitOpen
        ? r!.circuit_reason === 'unavailable'
          ? 'source_error'
          : r!.circuit_reason
        : state === 'ok'
          ? null
          : (r?.state_reason ?? null),
      detail: state === 'ok' ? null : (r?.state_detail ?? null),
      fix: fixFor(source, state, retryAtMs),
      retryAtMs,
      checkedAtMs: r?.probed_at_ms ?? null,
      okAtMs: r?.ok_at_ms ?? null,
      lastSuccessAtMs: r?.last_success_at_ms ?? null,
      lastFailureAtMs: r?.last_failure_at_ms ?? null,
      listed: split(r?.listed),
      unlisted: split(r?.unlisted),
    };
  });
}

/**
 * `(source) => detail | null`: whether the source is `blocked` (451/403/401 seen by a probe or a window's
 * request), read at most every `ttlMs`: a blocked source is not asked during windows until a probe clears it.
 */
export function blockedLookup(forkEm: () => Em, ttlMs = 2_000, now: () => number = Date.now): (source: string) => Promise<string | null> {
  let at = -Infinity;
  let blocked = new Map<string, string>();
  let pending: Promise<void> | null = null;
  const refresh = async () => {
    const rows = await repos(forkEm()).prices.health();
    blocked = new Map(rows.filter((r) => r.state === 'blocked').map((r) => [r.source, r.state_detail ?? 'blocked']));
    at = now();
  };
  return async (source) => {
    if (now() - at >= ttlMs) {
      pending ??= refresh().finally(() => (pending = null));
      await pending;
    }
    return blocked.get(source) ?? null;
  };
}
