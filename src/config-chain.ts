// Settlement settings of src/config.ts: SETTLEMENT_MODE, the chain, and the two secrets (each given inline
// or as a *_FILE path). Reads no environment (config.ts hands it the parsed keys). A secret lives in a
// Secret, whose JSON, string and inspect forms are `[redacted]`: logging the config never shows it, and no
// problem message quotes a secret's value.
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { english } from 'viem/accounts';
import type { Parsed } from './config-schema.js';

export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON() {
    return '[redacted]';
  }
  toString() {
    return '[redacted]';
  }
  [inspect.custom]() {
    return '[redacted]';
  }
}

export interface ChainSettings {
  rpcUrl: string;
  chainId: number;
  /** EIP-55 is not required here: the chain module checksums it. */
  usdcAddress: `0x${string}`;
  settlementKey: Secret;
  /** Custodial deposit addresses; absent: only pull deposits. */
  depositMnemonic: Secret | undefined;
  confirmations: number;
  replaceAfterMs: number;
  pollMs: number;
  /** CHAIN_RECEIPT_REVIEW_AFTER_MS and CHAIN_REVIEW_RECHECK_MS (docs/settlement.md, "What the service concludes from the node"). */
  receiptReviewAfterMs: number;
  reviewRecheckMs: number;
  /** CHAIN_WAIT_RECHECK_MS. */
  waitRecheckMs: number;
  /** CHAIN_MAX_FEE_PER_GAS_WEI and CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI (local-chain defaults outside production). */
  feeCap: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  /** The L1 data fee counts (OP-stack chains: Base, Base Sepolia, OP Mainnet, OP Sepolia; or CHAIN_OP_STACK=true). */
  opStack: boolean;
  gasFloorWei: bigint;
  /** Custodial deposits (docs/settlement-custodial.md): listener and sweeper cadence, eth_getLogs block range, sweep threshold. */
  depositScanEveryMs: number;
  logBlockRange: number;
  /** CHAIN_DEPOSIT_REREAD_BLOCKS: the listener's trailing window of confirmed blocks read again every scan. */
  depositRereadBlocks: number;
  /** CHAIN_RECONCILE_EVERY_MS: the reconcile-chain job's cadence. */
  reconcileEveryMs: number;
  sweepMinMicros: bigint;
}

const WORDS = new Set(english);

/** The fee cap outside production when none is set: generous for a local chain (anvil's base fee starts at 1 gwei). */
export const DEV_FEE_CAP = { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 2_000_000_000n };

/** OP-stack chains whose transactions pay an L1 data fee: Base, Base Sepolia, OP Mainnet, OP Sepolia. */
export const OP_STACK_CHAINS: readonly number[] = [8453, 84532, 10, 11155420];

/** Null when the phrase is 12-24 words of the BIP-39 English list (the checksum is left to derivation). */
function mnemonicProblem(m: string): string | null {
  const words = m.trim().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length)) return 'must be a BIP-39 phrase of 12, 15, 18, 21 or 24 words';
  if (words.some((w) => !WORDS.has(w))) return 'holds a word outside the BIP-39 English list';
  return null;
}

/** A secret from KEY or KEY_FILE (not both); the problem names the key, never the value. */
function secretOf(e: Parsed, key: 'SETTLEMENT_PRIVATE_KEY' | 'DEPOSIT_MNEMONIC', problems: string[], read: (path: string) => string) {
  const inline = e[key];
  const file = e[`${key}_FILE`];
  if (inline !== undefined && file !== undefined) {
    problems.push(`${key} / ${key}_FILE: set one, not both`);
    return undefined;
  }
  if (file === undefined) return inline?.trim();
  try {
    return read(file).trim();
  } catch (err) {
    problems.push(`${key}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

const readSecretFile = (path: string) => readFileSync(path, 'utf8');

/**
 * The chain settings when SETTLEMENT_MODE=onchain (else undefined), pushing every problem found.
 * Production refuses demo settlement unless ALLOW_DEMO_SETTLEMENT=true.
 */
export function chainSettings(e: Parsed, problems: string[], read = readSecretFile): ChainSettings | undefined {
  if (e.SETTLEMENT_MODE === 'demo') {
    if (e.NODE_ENV === 'production' && !e.ALLOW_DEMO_SETTLEMENT) {
      problems.push(
        'SETTLEMENT_MODE: demo settlement (made-up transaction hashes, no chain) is refused when NODE_ENV=production; set SETTLEMENT_MODE=onchain, or ALLOW_DEMO_SETTLEMENT=true for a play-money deployment',
      );
    }
    return undefined;
  }
  const before = problems.length;
  if (e.NODE_ENV === 'production') {
    for (const k of ['CHAIN_MAX_FEE_PER_GAS_WEI', 'CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI'] as const) {
      if (e[k] === undefined) problems.push(`${k}: required when NODE_ENV=production in onchain mode (the fee cap: nothing is signed above it)`);
    }
  }
  const cap = {
    fee: e.CHAIN_MAX_FEE_PER_GAS_WEI ?? DEV_FEE_CAP.maxFeePerGas,
    tip: e.CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI ?? DEV_FEE_CAP.maxPriorityFeePerGas,
  };
  if (cap.fee === 0n || cap.tip > cap.fee) {
    problems.push('CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI / CHAIN_MAX_FEE_PER_GAS_WEI: the max fee must be positive and at least the priority fee');
  }
  if (!e.CHAIN_RPC_URL) problems.push('CHAIN_RPC_URL: required when SETTLEMENT_MODE=onchain');
  if (!e.USDC_ADDRESS) problems.push('USDC_ADDRESS: required when SETTLEMENT_MODE=onchain');
  const key = secretOf(e, 'SETTLEMENT_PRIVATE_KEY', problems, read);
  if (key === undefined) {
    if (!problems.some((p) => p.startsWith('SETTLEMENT_PRIVATE_KEY')))
      problems.push('SETTLEMENT_PRIVATE_KEY (or SETTLEMENT_PRIVATE_KEY_FILE): required when SETTLEMENT_MODE=onchain');
  } else if (!/^0x[0-9a-fA-F]{64}$/.test(key) || /^0x0{64}$/.test(key)) {
    problems.push('SETTLEMENT_PRIVATE_KEY: must be a 0x-prefixed 32-byte hex private key (the value is not shown)');
  }
  const mnemonic = secretOf(e, 'DEPOSIT_MNEMONIC', problems, read);
  const bad = mnemonic === undefined ? null : mnemonicProblem(mnemonic);
  if (bad) problems.push(`DEPOSIT_MNEMONIC: ${bad} (the value is not shown)`);
  if (problems.length > before) return undefined;
  return {
    rpcUrl: e.CHAIN_RPC_URL!,
    chainId: e.CHAIN_ID,
    usdcAddress: e.USDC_ADDRESS as `0x${string}`,
    settlementKey: new Secret(key!),
    depositMnemonic: mnemonic === undefined ? undefined : new Secret(mnemonic.split(/\s+/).join(' ')),
    confirmations: e.CHAIN_CONFIRMATIONS,
    replaceAfterMs: e.CHAIN_REPLACE_AFTER_MS,
    pollMs: e.CHAIN_POLL_MS,
    receiptReviewAfterMs: e.CHAIN_RECEIPT_REVIEW_AFTER_MS,
    reviewRecheckMs: e.CHAIN_REVIEW_RECHECK_MS,
    waitRecheckMs: e.CHAIN_WAIT_RECHECK_MS,
    feeCap: {
      maxFeePerGas: e.CHAIN_MAX_FEE_PER_GAS_WEI ?? DEV_FEE_CAP.maxFeePerGas,
      maxPriorityFeePerGas: e.CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI ?? DEV_FEE_CAP.maxPriorityFeePerGas,
    },
    opStack: e.CHAIN_OP_STACK === 'auto' ? OP_STACK_CHAINS.includes(e.CHAIN_ID) : e.CHAIN_OP_STACK === 'true',
    gasFloorWei: e.SETTLEMENT_GAS_FLOOR_WEI,
    depositScanEveryMs: e.CHAIN_DEPOSIT_SCAN_EVERY_MS,
    logBlockRange: e.CHAIN_LOG_BLOCK_RANGE,
    depositRereadBlocks: e.CHAIN_DEPOSIT_REREAD_BLOCKS,
    reconcileEveryMs: e.CHAIN_RECONCILE_EVERY_MS,
    sweepMinMicros: BigInt(e.DEPOSIT_SWEEP_MIN_MICROS),
  };
}
