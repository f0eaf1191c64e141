// External components an operator watches (GET /v1/admin/status, the crfq_component_up gauge): each price
// source and, in `onchain` mode, the chain. An adapter describes itself with a StatusComponent; the API
// process lists them (src/service.ts) and checks each with a 2 s bound.
import type { SourceStatus } from './prices/health.js';

export type ComponentKind = 'price_source' | 'chain';

export interface ComponentHealth {
  state: 'ok' | 'degraded' | 'failed' | 'unknown' | 'blocked' | 'banned' | 'rate_limited';
  /** A short explanation when not ok; never a secret or a connection string. */
  detail?: string;
}

export interface StatusComponent {
  readonly name: string;
  readonly kind: ComponentKind;
  check(): Promise<ComponentHealth>;
}

/**
 * Each listed price source, from its state (src/domain/prices/health.ts): `ok` only after a probe's successful
 * answer, `unknown` before the first probe, `failed` while failing, `blocked` / `banned` / `rate_limited` with
 * the reason and the fix in the detail. The status endpoint never calls a source itself: the probes do, at
 * start-up and every PRICE_PROBE_EVERY_MS.
 */
export function priceSourceComponents(sources: readonly string[], statuses: () => Promise<SourceStatus[]>): StatusComponent[] {
  return sources.map((name) => ({
    name,
    kind: 'price_source' as const,
    async check(): Promise<ComponentHealth> {
      const s = (await statuses()).find((x) => x.source === name);
      if (!s || s.state === 'unknown') return { state: 'unknown', detail: 'not probed yet' };
      if (s.state === 'ok') return { state: 'ok' };
      const detail = [`${s.reason ?? s.state}${s.detail ? `: ${s.detail}` : ''}`, s.fix ? `Fix: ${s.fix}` : null]
        .filter(Boolean)
        .join('. ');
      return { state: s.state === 'failing' ? 'failed' : s.state, detail: detail.slice(0, 600) };
    },
  }));
}
