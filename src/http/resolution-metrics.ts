// Time to resolve (docs/deployment.md, "Gauges"; alert rules in docs/alerts.yml): from the same status report
// as the crfq_* gauges (src/http/system-status.ts), so a scrape reads the database once.
//   crfq_windows_overdue                 windows with open positions, ended more than RESOLUTION_OVERDUE_AFTER_MS ago, no outcome, no dispute
//   crfq_window_resolution_lag_seconds   how long ago the oldest of them ended (0 when none)
//   crfq_windows_disputed                DISPUTED windows nobody resolved yet (they void at their deadline)
import { Gauge, type Registry } from 'prom-client';
import type { SystemStatusSource } from './system-status.js';

export function registerResolutionGauges(registry: Registry, source: SystemStatusSource): void {
  new Gauge({
    name: 'crfq_windows_overdue',
    help: 'RFQ windows with open positions that ended more than RESOLUTION_OVERDUE_AFTER_MS ago and have no outcome (nor a dispute)',
    registers: [registry],
    async collect() {
      this.set((await source.report()).resolution.overdue);
    },
  });
  new Gauge({
    name: 'crfq_window_resolution_lag_seconds',
    help: 'Seconds since the end of the oldest overdue RFQ window (0 when none is overdue)',
    registers: [registry],
    async collect() {
      const r = await source.report();
      const oldest = r.resolution.oldest_overdue_end_ms;
      this.set(oldest === null ? 0 : Math.max(0, r.checked_at_ms - oldest) / 1000);
    },
  });
  new Gauge({
    name: 'crfq_windows_disputed',
    help: 'DISPUTED RFQ windows waiting for the operator (they void at their deadline)',
    registers: [registry],
    async collect() {
      this.set((await source.report()).resolution.disputed);
    },
  });
}
