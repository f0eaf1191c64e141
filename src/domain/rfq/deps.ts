// What the RFQ rules need from the configuration (src/config.ts `rfq`, `markets.bettingCloseBufferMs`).
import type { RfqLimits } from './validate.js';

export interface RfqSettings extends RfqLimits {
  maxOpenPerUser: number;
  eip712Name: string;
  signingChainId: number;
  /** MARKET_BETTING_CLOSE_BUFFER_MS: a leg's window closes for betting this long before it ends. */
  bettingCloseBufferMs: number;
}

export interface RfqDeps {
  settings: RfqSettings;
  /** The clock (tests pin it); default Date.now. */
  now?: () => number;
}

export const nowOf = (deps: RfqDeps) => (deps.now ?? Date.now)();

/** The RFQ settings of a loaded configuration (the API, the sweeper and the benches build them alike). */
export function rfqDepsOf(config: { rfq: Omit<RfqSettings, 'bettingCloseBufferMs'>; markets: { bettingCloseBufferMs: number } }): RfqDeps {
  return { settings: { ...config.rfq, bettingCloseBufferMs: config.markets.bettingCloseBufferMs } };
}
