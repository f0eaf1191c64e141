// What the RFQ rules need from the configuration (src/config/types.ts `rfq`, `markets.bettingCloseBufferMs`).
import type { RfqLimits } from './validate.js';

export interface RfqSettings extends RfqLimits {
  maxOpenPerUser: number;
  eip712Name: string;
  /** RFQ_EIP712_SALT: the deployment's EIP-712 domain salt (0x + 32 bytes of hex). */
  eip712Salt: `0x${string}`;
  signingChainId: number;
  /** RFQ_MIN_FILL_MICROS: the least stake one maker may fill; smaller quotes are refused. */
  minFillMicros: bigint;
  /** MARKET_BETTING_CLOSE_BUFFER_MS: a leg's window closes for betting this long before it ends. */
  bettingCloseBufferMs: number;
}

/** An RFQ market window as a leg needs it (a window's row never changes once created). */
export interface RfqWindowInfo {
  asset: string;
  durationSecs: number;
  startAtMs: number;
}

export interface RfqDeps {
  settings: RfqSettings;
  /** The clock (tests pin it); default Date.now. */
  now?: () => number;
  /** Windows this process has seen, by market_id: a create looks up only the others. One per process and database. */
  windows?: Map<number, RfqWindowInfo>;
}

/** Known windows kept at most (a few hundred open at a time; past this the map starts again). */
export const MAX_KNOWN_WINDOWS = 10_000;

export const nowOf = (deps: RfqDeps) => (deps.now ?? Date.now)();

/** The RFQ settings of a loaded configuration (the API, the sweeper and the benches build them alike). */
export function rfqDepsOf(config: { rfq: Omit<RfqSettings, 'bettingCloseBufferMs'>; markets: { bettingCloseBufferMs: number } }): RfqDeps {
  return { settings: { ...config.rfq, bettingCloseBufferMs: config.markets.bettingCloseBufferMs }, windows: new Map() };
}
