// The custody keys of the configuration schema (src/config/schema.ts spreads them in; src/config/custody.ts reads
// them): apart from the settings they parse into, as src/config/schema-chain.ts is for the chain, so that the
// schema and the settings never import each other.
import { getAddress, isAddress } from 'viem';
import { z } from 'zod';
import { intFrom, optionalString } from './parse.js';

/** The largest micros a setting takes: a JSON integer clients read exactly (2^53-1), as request amounts. */
const MAX_MICROS = 9_007_199_254_740_991n;

const micros = (min: bigint) =>
  optionalString.pipe(
    z
      .string()
      .trim()
      .regex(/^\d{1,16}$/, 'must be a whole number of USDC micros')
      .transform(BigInt)
      .refine((v) => v >= min && v <= MAX_MICROS, `must be between ${min} and ${MAX_MICROS}`)
      .optional(),
  );

const address = optionalString.pipe(
  z
    .string()
    .trim()
    .refine((v) => isAddress(v, { strict: true }), 'must be a 0x-prefixed 20-byte address (a mixed-case one with a valid EIP-55 checksum)')
    .transform((v) => getAddress(v))
    .optional(),
);

export const custodyKeys = {
  /** The least withdrawal; default 1000000 (1 USDC) with SETTLEMENT_MODE=onchain, 1 micro in demo. */
  WITHDRAWAL_MIN_MICROS: micros(1n),
  /** Charged on top of every withdrawal's amount, posted to the treasury when it is paid. */
  WITHDRAWAL_FEE_MICROS: micros(0n),
  /** The least pull deposit (POST /v1/users/deposit); default 1000000 with SETTLEMENT_MODE=onchain, 1 micro in demo. */
  DEPOSIT_MIN_MICROS: micros(1n),
  /** What one user may withdraw over any rolling 24 hours; unset: no limit. */
  WITHDRAWAL_DAILY_LIMIT_MICROS: micros(1n),
  /** What the whole deployment sends without review over any rolling hour; past it, withdrawals are held for review. */
  WITHDRAWALS_HOURLY_LIMIT_MICROS: micros(1n),
  /** A withdrawal of more than this is held for an operator's review; unset: none is (0: every one is). */
  WITHDRAWAL_REVIEW_ABOVE_MICROS: micros(0n),
  /** The cold wallet: never a withdrawal's destination; with HOT_WALLET_MAX_MICROS, USDC above it goes there. */
  COLD_WALLET_ADDRESS: address,
  /** The settlement wallet's ceiling (the hot float beyond pending withdrawals); above it, a worker moves USDC to COLD_WALLET_ADDRESS. */
  HOT_WALLET_MAX_MICROS: micros(0n),
  /** Addresses refused as a withdrawal's destination, one a line; re-read while running. */
  WITHDRAWAL_DENYLIST_FILE: optionalString,
  /** How often WITHDRAWAL_DENYLIST_FILE is re-read. */
  WITHDRAWAL_DENYLIST_RELOAD_MS: intFrom(5000, 100, 3_600_000),
  /** A Chainalysis-style sanctions oracle on CHAIN_RPC_URL: an address it lists is refused as a destination. */
  SANCTIONS_ORACLE_ADDRESS: address,
};
