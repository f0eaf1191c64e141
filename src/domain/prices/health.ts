// Each price source's health (docs/prices.md): the workers add what every resolution attempt's requests cost;
// /readyz shows each source's last success and /metrics its requests, failures and latency, from any process.
import type { Em } from '../../db/orm.js';
import { pricesRepository, type HealthSample } from '../../db/repositories/prices.repository.js';
import { db } from '../../db/schema.js';

export interface SourceHealth {
  source: string;
  lastSuccessAtMs: number | null;
  lastFailureAtMs: number | null;
  requests: number;
  failures: number;
  latencyMsTotal: number;
}

export function recordSourceHealth(em: Em, samples: HealthSample[]): Promise<void> {
  return pricesRepository(db(em)).addHealth(samples);
}

export async function sourceHealth(em: Em): Promise<SourceHealth[]> {
  const rows = await pricesRepository(db(em)).health();
  return rows.map((r) => ({
    source: r.source,
    lastSuccessAtMs: r.last_success_at_ms,
    lastFailureAtMs: r.last_failure_at_ms,
    requests: r.requests,
    failures: r.failures,
    latencyMsTotal: r.latency_ms_total,
  }));
}
