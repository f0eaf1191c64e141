// External components an operator watches (GET /v1/admin/status, the crfq_component_up gauge): each price
// source and, in `onchain` mode, the chain. An adapter describes itself with a StatusComponent; the API
// process lists them (src/service.ts) and checks each with a 2 s bound.
import type { SourceHealth } from './prices/health.js';

export type ComponentKind = 'price_source' | 'chain';

export interface ComponentHealth {
  state: 'ok' | 'degraded' | 'failed';
  /** A short explanation when not ok; never a secret or a connection string. */
  detail?: string;
}

export interface StatusComponent {
  readonly name: string;
  readonly kind: ComponentKind;
  check(): Promise<ComponentHealth>;
}

/**
 * Each listed price source, from the health the resolution jobs record (src/domain/prices/health.ts): `ok`
 * when its last request succeeded (or none was made yet), `degraded` when its last failure is newer than
 * its last success. The status endpoint never calls an exchange itself.
 */
export function priceSourceComponents(sources: readonly string[], health: () => Promise<SourceHealth[]>): StatusComponent[] {
  return sources.map((name) => ({
    name,
    kind: 'price_source' as const,
    async check(): Promise<ComponentHealth> {
      const h = (await health()).find((x) => x.source === name);
      if (!h || h.lastFailureAtMs === null) return { state: 'ok' };
      if (h.lastSuccessAtMs !== null && h.lastSuccessAtMs > h.lastFailureAtMs) return { state: 'ok' };
      return { state: 'degraded', detail: `last request failed at ${new Date(h.lastFailureAtMs).toISOString()}` };
    },
  }));
}
