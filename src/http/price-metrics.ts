// Prometheus series of the price sources (docs/prices.md), read at scrape time from price_source_health,
// which the workers of every process write: so any API process reports every source.
//   price_source_requests_total{source}          requests made (each open or close reading is one)
//   price_source_failures_total{source}          of which failed for good (after their retries)
//   price_source_latency_seconds_total{source}   time spent in them: rate(latency) / rate(requests) is the mean
//   price_source_last_success_timestamp_seconds{source}
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SourceHealth } from '../domain/prices/health.js';

export function registerPriceSourceMetrics(registry: Registry, read: () => Promise<SourceHealth[]>): void {
  // One database read per scrape, shared by the four series.
  let pending: Promise<SourceHealth[]> | null = null;
  const rows = () => {
    pending ??= read()
      .catch(() => [] as SourceHealth[])
      .finally(() => setTimeout(() => (pending = null), 0));
    return pending;
  };
  const counter = (name: string, help: string, value: (h: SourceHealth) => number) =>
    new Counter({
      name,
      help,
      labelNames: ['source'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const h of await rows()) this.inc({ source: h.source }, value(h));
      },
    });
  counter('price_source_requests_total', 'Price source requests by the resolution jobs (one per open or close reading)', (h) => h.requests);
  counter('price_source_failures_total', 'Price source requests that failed after their retries', (h) => h.failures);
  counter('price_source_latency_seconds_total', 'Time spent in price source requests, seconds', (h) => h.latencyMsTotal / 1000);
  new Gauge({
    name: 'price_source_last_success_timestamp_seconds',
    help: 'When a price source last answered, Unix seconds (absent before its first success)',
    labelNames: ['source'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const h of await rows()) if (h.lastSuccessAtMs !== null) this.set({ source: h.source }, h.lastSuccessAtMs / 1000);
    },
  });
}
