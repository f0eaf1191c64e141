import type { SettlementAdapter } from './adapter.js';
import { createDemoSettlement } from './demo.js';

export type { SettlementAdapter, SettlementRequest, SettlementResult } from './adapter.js';

/** The adapter of SETTLEMENT_MODE (only `demo` exists so far). */
export function createSettlementAdapter(opts: { mode: 'demo'; demoOnchainBalanceMicros: bigint }): SettlementAdapter {
  return createDemoSettlement({ onchainBalanceMicros: opts.demoOnchainBalanceMicros });
}
