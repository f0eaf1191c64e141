// The onchain settlement keys of the environment schema (src/config/schema.ts; SETTLEMENT_MODE=onchain,
// docs/settlement.md): the node, the token, the keys and signer, custodial deposits, fees and cadences. Their
// cross-field rules are in src/config/chain.ts. Reads no environment.
import { z } from 'zod';
import { intFrom, optionalString } from './parse.js';

const bool = (def: 'true' | 'false') =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(def)
    .transform((v) => v === 'true' || v === '1');

export const chainKeys = {
  // Onchain settlement (SETTLEMENT_MODE=onchain; docs/settlement.md). Secrets: also as *_FILE, never logged.
  CHAIN_RPC_URL: optionalString.pipe(
    z
      .string()
      .regex(
        /^(https?|wss?):\/\/[^\s,]+(\s*,\s*(https?|wss?):\/\/[^\s,]+)*$/,
        'must be an http(s):// or ws(s):// URL, or several comma-separated',
      )
      .optional(),
  ),
  /** The chain the node must report (eth_chainId); Base by default. */
  CHAIN_ID: intFrom(8453, 1),
  USDC_ADDRESS: optionalString.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address')
      .optional(),
  ),
  /** On Base (8453) and Base Sepolia (84532) USDC_ADDRESS must be Circle's USDC unless this is true (a test deployment of another token). */
  ALLOW_UNKNOWN_USDC: bool('false'),
  SETTLEMENT_PRIVATE_KEY: optionalString,
  SETTLEMENT_PRIVATE_KEY_FILE: optionalString,
  /** The settlement wallet's address: what a process without its key (an API, or workers signing through SETTLEMENT_SIGNER_URL) needs. */
  SETTLEMENT_ADDRESS: optionalString,
  /** A JSON-RPC endpoint answering eth_signTransaction for SETTLEMENT_ADDRESS (Web3Signer's Eth1 mode), instead of the key. */
  SETTLEMENT_SIGNER_URL: optionalString.pipe(
    z
      .string()
      .regex(/^https?:\/\/\S+$/, 'must be an http(s):// URL')
      .optional(),
  ),
  DEPOSIT_MNEMONIC: optionalString,
  DEPOSIT_MNEMONIC_FILE: optionalString,
  /**
   * The extended public key of m/44'/60'/<DEPOSIT_ACCOUNT_INDEX>'/0 (or of the account node above it): custodial
   * deposit addresses derived with no secret, for API processes (src/config/deposit-xpub.ts). Not a secret.
   */
  DEPOSIT_XPUB: optionalString,
  /**
   * The BIP-44 account of this deployment's custodial addresses, m/44'/60'/<index>'/0/<n>: two deployments that
   * share a DEPOSIT_MNEMONIC must each have their own. Required in production with DEPOSIT_MNEMONIC; default 0 elsewhere.
   */
  DEPOSIT_ACCOUNT_INDEX: optionalString.pipe(
    z
      .string()
      .trim()
      .regex(/^\d{1,10}$/, 'must be a whole number')
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .max(2 ** 31 - 1, 'must be at most 2147483647'),
      )
      .optional(),
  ),
  /** SETTLEMENT_MODE=onchain refuses the development identity (DATA_DIR/dev-privy) unless this is true: a local chain only. */
  ALLOW_DEV_IDENTITY_ONCHAIN: bool('false'),
  /** Blocks a transaction needs (its own included) before a deposit or withdrawal is final. */
  CHAIN_CONFIRMATIONS: intFrom(3, 1, 1000),
  /** A settlement transaction not mined after this long is replaced at the same nonce with a higher fee. */
  CHAIN_REPLACE_AFTER_MS: intFrom(60_000, 100, 3_600_000),
  /** How often a waiting settlement asks the node for its receipt and the chain head. */
  CHAIN_POLL_MS: intFrom(1000, 20, 60_000),
  /**
   * An operation whose nonce is used on chain while none of its transactions has a receipt waits this long
   * (pending_reason receipt_missing) before it goes to an operator (needs_review); never failed or refunded.
   */
  CHAIN_RECEIPT_REVIEW_AFTER_MS: intFrom(900_000, 1000, 86_400_000),
  /** How often an operation in review is looked at again on chain (a receipt that appears settles it by itself). */
  CHAIN_REVIEW_RECHECK_MS: intFrom(60_000, 100, 3_600_000),
  /** Custodial deposits (docs/settlement-custodial.md): how often the listener scans and the sweeper steps. */
  CHAIN_DEPOSIT_SCAN_EVERY_MS: intFrom(5000, 50, 600_000),
  /** The most blocks one eth_getLogs request of the deposit listener covers. */
  CHAIN_LOG_BLOCK_RANGE: intFrom(500, 1, 100_000),
  /**
   * Confirmed blocks below its cursor the deposit listener reads again on every scan (a transfer a lagging
   * provider backend answered `[]` for is credited on a later scan; the credit key keeps it exactly once).
   */
  CHAIN_DEPOSIT_REREAD_BLOCKS: intFrom(32, 0, 10_000),
  /** How often the workers read the chain's status and reconciliation (reconcile-chain) for every API process. */
  CHAIN_RECONCILE_EVERY_MS: intFrom(60_000, 1000, 3_600_000),
  /** A deposit address is swept into the settlement wallet once it holds at least this many USDC micros. */
  DEPOSIT_SWEEP_MIN_MICROS: intFrom(1_000_000, 1),
  /** Gas (wei) the settlement wallet should keep; below it the service logs a warning (and the gauge shows it). */
  SETTLEMENT_GAS_FLOOR_WEI: z
    .string()
    .trim()
    .regex(/^\d{1,40}$/, 'must be a whole number of wei')
    .default('10000000000000000')
    .transform(BigInt),
  /**
   * The fee cap of every chain transaction (docs/settlement.md, "Fees"): nothing is signed above it; when the
   * network needs more, transactions wait (pending_reason fee_cap). Required when NODE_ENV=production in onchain
   * mode; the defaults suit a local chain only.
   */
  CHAIN_MAX_FEE_PER_GAS_WEI: z
    .string()
    .trim()
    .regex(/^\d{1,30}$/, 'must be a whole number of wei')
    .transform(BigInt)
    .optional(),
  CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI: z
    .string()
    .trim()
    .regex(/^\d{1,30}$/, 'must be a whole number of wei')
    .transform(BigInt)
    .optional(),
  /** OP-stack L1 data fee in every affordability check: auto (on for chains 8453, 84532, 10, 11155420), true or false. */
  CHAIN_OP_STACK: z.enum(['auto', 'true', 'false']).default('auto'),
  /** How often a deposit or withdrawal that waits for funds, gas, the fee cap or an unpaused token is looked at again. */
  CHAIN_WAIT_RECHECK_MS: intFrom(15_000, 100, 3_600_000),
};
