// The circuit the HTTP price clients consult before each request and open on a 429, 418 or long 5xx
// (http-json.ts; docs/prices.md, "Blocks and bans"). Its stores: src/domain/prices/circuit.ts (one process, or
// PostgreSQL) and src/jobs/price-circuit.ts (Redis).
/** Why a circuit is open; `unavailable` is a 5xx whose Retry-After asked for more than a retry's wait. */
export type CircuitReason = 'rate_limited' | 'banned' | 'unavailable';

export interface CircuitState {
  untilMs: number;
  reason: CircuitReason;
}

export interface SourceCircuit {
  /** The source's circuit if it is open at `nowMs`, else null. */
  state(source: string, nowMs: number): Promise<CircuitState | null>;
  /** Opens the circuit until `untilMs`, or extends it; never shortens an open one. */
  open(source: string, untilMs: number, reason: CircuitReason): Promise<void>;
}
