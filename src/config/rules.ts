// Cross-field rules of src/config/load.ts: problems one key alone cannot show. Reads no environment.
import { DEMO_BASES_MICROS, PROCESSING_BUFFER_MS, RFQ_EIP712_SALT_DEV } from '../constants.js';
import type { Parsed } from './schema.js';

/** Null when the buffer leaves every market window some open betting time (the rule windows.ts asserts per window). */
export function bufferProblem(durations: readonly number[], bufferMs: number): string | null {
  const tooShort = durations.filter((d) => bufferMs >= d * 1000);
  if (!tooShort.length) return null;
  return `must be less than the shortest MARKET_DURATIONS window (${Math.min(...durations) * 1000} ms); ${bufferMs} ms leaves no betting time in the ${tooShort.join(', ')} s windows`;
}

/**
 * What a deployment needs besides its features' own keys: production asks for a database, an operator account
 * and the public origin wallet sign-in messages are signed for; Privy only when Privy sign-in is configured
 * (without it, wallets sign in with SIWE only: docs/configuration.md, "Sign-in").
 */
export function deploymentProblems(e: Parsed): string[] {
  const problems: string[] = [];
  if (e.NODE_ENV === 'production') {
    if (!e.DATABASE_URL) problems.push('DATABASE_URL: required when NODE_ENV=production (embedded PGlite is single-process)');
    if (!e.OPERATOR_TOKEN && !e.OPERATOR_TOKENS_FILE)
      problems.push('OPERATOR_TOKEN / OPERATOR_TOKENS_FILE: one is required when NODE_ENV=production');
    if (!e.SIWE_DOMAIN && !e.PUBLIC_URL) {
      problems.push(
        "SIWE_DOMAIN / PUBLIC_URL: one is required when NODE_ENV=production: the web app's origin wallet sign-in messages are signed for (else localhost:PORT)",
      );
    }
  }
  if ((e.PRIVY_APP_ID === undefined) !== (e.PRIVY_VERIFICATION_KEY === undefined)) {
    problems.push('PRIVY_APP_ID / PRIVY_VERIFICATION_KEY: set both or neither');
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    problems.push('METRICS_PORT: must differ from PORT (the internal metrics port is not the public one)');
  }
  if (e.REDIS_URL && !e.DATABASE_URL) {
    problems.push('REDIS_URL: requires DATABASE_URL (embedded PGlite serves one process; Redis implies several)');
  }
  return problems;
}

/** Cross-field rules of the RFQ settings (docs/configuration.md). */
export function rfqProblems(e: Parsed): string[] {
  const problems: string[] = [];
  if (!e.SIWE_CHAIN_IDS.includes(e.RFQ_SIGNING_CHAIN_ID)) {
    problems.push(
      `RFQ_SIGNING_CHAIN_ID: must be one of SIWE_CHAIN_IDS (${e.SIWE_CHAIN_IDS.join(',')}): the wallet that signs in signs the orders`,
    );
  }
  if (e.RFQ_QUOTE_WINDOW_MS >= e.RFQ_MAX_DEADLINE_MS - PROCESSING_BUFFER_MS) {
    problems.push(
      `RFQ_QUOTE_WINDOW_MS: must be less than RFQ_MAX_DEADLINE_MS - ${PROCESSING_BUFFER_MS} (${e.RFQ_MAX_DEADLINE_MS - PROCESSING_BUFFER_MS} ms), or no best-mode deadline is acceptable`,
    );
  }
  if (e.RFQ_MIN_STAKE_MICROS > e.RFQ_MAX_STAKE_MICROS) problems.push('RFQ_MIN_STAKE_MICROS: must not exceed RFQ_MAX_STAKE_MICROS');
  if (e.RFQ_MIN_FILL_MICROS > e.RFQ_MIN_STAKE_MICROS) {
    problems.push('RFQ_MIN_FILL_MICROS: must not exceed RFQ_MIN_STAKE_MICROS, or the smallest order could never fill');
  }
  if (e.NODE_ENV === 'production' && !e.RFQ_EIP712_SALT) {
    problems.push(
      'RFQ_EIP712_SALT: required when NODE_ENV=production (a 32-byte hex salt of this deployment: orders signed elsewhere are refused)',
    );
  }
  if (e.NODE_ENV === 'production' && e.RFQ_EIP712_SALT === RFQ_EIP712_SALT_DEV) {
    problems.push('RFQ_EIP712_SALT: is the development salt; production needs its own (e.g. 0x + `openssl rand -hex 32`)');
  }
  const smallestPayout = (BigInt(e.RFQ_MIN_STAKE_MICROS) * 10_001n) / 10_000n;
  if (BigInt(e.RFQ_MAX_PAYOUT_MICROS) < smallestPayout) {
    problems.push(
      `RFQ_MAX_PAYOUT_MICROS: must be at least ${smallestPayout} (the minimum stake at the lowest odds), or no order is acceptable`,
    );
  }
  if (e.PRICE_FEED.includes('demo')) {
    const unpriced = e.MARKET_ASSETS.filter((a) => DEMO_BASES_MICROS[a] === undefined);
    if (unpriced.length)
      problems.push(
        `MARKET_ASSETS: the demo price feed has no price for ${unpriced.join(', ')} (it prices ${Object.keys(DEMO_BASES_MICROS).join(', ')})`,
      );
  }
  if (e.MM_MAX_QUOTES_PER_SECOND >= e.MM_MAX_FRAMES_PER_SECOND) {
    problems.push(
      `MM_MAX_QUOTES_PER_SECOND: must be less than MM_MAX_FRAMES_PER_SECOND (${e.MM_MAX_FRAMES_PER_SECOND}), or a maker quoting too fast is disconnected (1008) instead of answered rate_limited`,
    );
  }
  if (e.MM_MAX_FRAME_BURST < e.MM_MAX_FRAMES_PER_SECOND) {
    problems.push(
      `MM_MAX_FRAME_BURST: must be at least MM_MAX_FRAMES_PER_SECOND (${e.MM_MAX_FRAMES_PER_SECOND}): the burst is the size of the bucket the rate refills`,
    );
  }
  if (e.RESOLUTION_MAX_WAIT_MS <= e.RESOLUTION_DELAY_MS) problems.push('RESOLUTION_MAX_WAIT_MS: must be greater than RESOLUTION_DELAY_MS');
  return problems;
}
