// A per-source circuit shared by every process (docs/prices.md, "Blocks and bans"): an answer 429 or 418 (or a
// 5xx with a long Retry-After) opens the source's circuit until its Retry-After passed, and no process sends
// that source a request before then: four resolution workers no longer keep asking a banned IP and grow the
// ban. The store is Redis when REDIS_URL is set (src/jobs/price-circuit.ts) and PostgreSQL otherwise (the
// embedded PGlite deployment too): databaseCircuit below. Either way the opening is also written to
// price_source_health, which /readyz and GET /v1/admin/status read.
import type { Em } from '../../db/orm.js';
import type { CircuitReason, CircuitState, SourceCircuit } from '../../adapters/prices/circuit.js';
import { repos } from '../../db/repos.js';

export type { CircuitReason, CircuitState, SourceCircuit };

/** One process's circuit (tests, and the `demo` source which asks nobody). */
export function memoryCircuit(): SourceCircuit {
  const open = new Map<string, CircuitState>();
  return {
    async state(source, nowMs) {
      const s = open.get(source);
      return s && s.untilMs > nowMs ? s : null;
    },
    async open(source, untilMs, reason) {
      const s = open.get(source);
      if (!s || s.untilMs < untilMs) open.set(source, { untilMs, reason });
    },
  };
}

/** The circuit in price_source_health (PostgreSQL or PGlite): the store itself, or the report beside Redis. */
export function databaseCircuit(forkEm: () => Em): SourceCircuit {
  return {
    async state(source, nowMs) {
      const row = await repos(forkEm()).priceSources.circuit(source);
      return row && row.untilMs > nowMs ? row : null;
    },
    // Decided in SQL (PriceSourcesRepository.openCircuit, one UPSERT): the later deadline wins, with its reason.
    open: (source, untilMs, reason) => repos(forkEm()).priceSources.openCircuit(source, untilMs, reason),
  };
}

/** A circuit kept in `primary` (Redis) and reported in `report` (the database the status endpoints read). */
export function reportedCircuit(primary: SourceCircuit, report: SourceCircuit): SourceCircuit {
  return {
    state: (source, nowMs) => primary.state(source, nowMs),
    async open(source, untilMs, reason) {
      await primary.open(source, untilMs, reason);
      await report.open(source, untilMs, reason).catch(() => undefined); // the report is best effort; the gate is Redis
    },
  };
}
