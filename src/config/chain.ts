// Settlement settings of src/config/load.ts: SETTLEMENT_MODE, the chain, and the two secrets (read and kept
// redacted by secrets.ts; Circle's USDC per chain: usdc.ts). Reads no environment (load.ts hands it the parsed keys).
import { getAddress, isAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { depositParentNode, parseDepositXpub } from './deposit-xpub.js';
import type { Parsed } from './schema.js';
import { mnemonicProblem, readSecretFile, Secret, secretOf } from './secrets.js';
import { usdcAddressProblem } from './usdc.js';

export interface ChainSettings {
  rpcUrl: string;
  chainId: number;
  /** EIP-55 is not required here: the chain module checksums it. */
  usdcAddress: `0x${string}`;
  /** ALLOW_UNKNOWN_USDC: on Base and Base Sepolia another token than Circle's USDC is accepted (a test token). */
  allowUnknownUsdc: boolean;
  /** The settlement wallet (EIP-55): SETTLEMENT_ADDRESS, or the key's address. */
  settlementAddress: `0x${string}`;
  /** Absent when this process signs through SETTLEMENT_SIGNER_URL, or does not sign (an API process). */
  settlementKey: Secret | undefined;
  /** SETTLEMENT_SIGNER_URL: eth_signTransaction for settlementAddress. */
  signerUrl: string | undefined;
  /** Custodial deposit addresses and their keys (the workers' sweeps); absent: only pull deposits, or DEPOSIT_XPUB. */
  depositMnemonic: Secret | undefined;
  /** DEPOSIT_XPUB (src/config/deposit-xpub.ts): custodial deposit addresses without a key (an API process); with the mnemonic too, they agree. */
  depositXpub: string | undefined;
  /** DEPOSIT_ACCOUNT_INDEX: the BIP-44 account of this deployment's deposit addresses (m/44'/60'/<account>'/0/<n>). */
  depositAccountIndex: number;
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

/** The fee cap outside production when none is set: generous for a local chain (anvil's base fee starts at 1 gwei). */
export const DEV_FEE_CAP = { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 2_000_000_000n };

/** OP-stack chains whose transactions pay an L1 data fee: Base, Base Sepolia, OP Mainnet, OP Sepolia. */
export const OP_STACK_CHAINS: readonly number[] = [8453, 84532, 10, 11155420];

/**
 * The settlement wallet's address (docs/settlement.md, "Keys"): from SETTLEMENT_ADDRESS or the key (both: they must
 * agree). A process may hold no key at all (an API process; workers signing through SETTLEMENT_SIGNER_URL, which
 * cannot be combined with a key); workers refuse to start when they cannot sign (src/domain/settlement/index.ts).
 */
function settlementAddressOf(e: Parsed, key: string | undefined, problems: string[]): `0x${string}` | undefined {
  const given = e.SETTLEMENT_ADDRESS;
  if (given !== undefined && !isAddress(given, { strict: true })) {
    problems.push('SETTLEMENT_ADDRESS: must be a 0x-prefixed 20-byte address (a mixed-case one with a valid EIP-55 checksum)');
    return undefined;
  }
  if (key === undefined) {
    if (problems.some((p) => p.startsWith('SETTLEMENT_PRIVATE_KEY'))) return undefined;
    if (given === undefined)
      problems.push(
        'SETTLEMENT_PRIVATE_KEY (or SETTLEMENT_PRIVATE_KEY_FILE) or SETTLEMENT_ADDRESS: one is required when SETTLEMENT_MODE=onchain',
      );
    if (e.SETTLEMENT_SIGNER_URL !== undefined && given === undefined)
      problems.push('SETTLEMENT_SIGNER_URL: requires SETTLEMENT_ADDRESS (the account it signs for)');
    return given === undefined ? undefined : getAddress(given);
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(key) || /^0x0{64}$/.test(key)) {
    problems.push('SETTLEMENT_PRIVATE_KEY: must be a 0x-prefixed 32-byte hex private key (the value is not shown)');
    return undefined;
  }
  if (e.SETTLEMENT_SIGNER_URL !== undefined) {
    problems.push('SETTLEMENT_SIGNER_URL / SETTLEMENT_PRIVATE_KEY: set one, not both (the key would never be used)');
    return undefined;
  }
  const derived = privateKeyToAccount(key as `0x${string}`).address;
  if (given !== undefined && getAddress(given) !== derived) {
    problems.push("SETTLEMENT_ADDRESS: is not SETTLEMENT_PRIVATE_KEY's address");
    return undefined;
  }
  return derived;
}

/**
 * DEPOSIT_XPUB is an extended public key of this deployment's deposit addresses (src/config/deposit-xpub.ts) and,
 * beside DEPOSIT_MNEMONIC, the same addresses' (else an API and the workers would disagree on every address).
 */
function xpubProblems(e: Parsed, mnemonic: string | undefined, problems: string[]): void {
  if (e.DEPOSIT_XPUB === undefined) return;
  const account = e.DEPOSIT_ACCOUNT_INDEX ?? 0;
  const parsed = parseDepositXpub(e.DEPOSIT_XPUB, account);
  if ('problem' in parsed) {
    problems.push(`DEPOSIT_XPUB: ${parsed.problem}`);
    return;
  }
  if (mnemonic === undefined) return;
  const ours = depositParentNode(mnemonic.split(/\s+/).join(' '), account).publicExtendedKey;
  if (ours !== parsed.node.publicExtendedKey) {
    problems.push(
      `DEPOSIT_XPUB: is not the key of DEPOSIT_MNEMONIC's m/44'/60'/${account}'/0 (the API would hand out addresses the workers cannot sweep)`,
    );
  }
}

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
      if (e[k] === undefined)
        problems.push(`${k}: required when NODE_ENV=production in onchain mode (the fee cap: nothing is signed above it)`);
    }
  }
  const cap = {
    fee: e.CHAIN_MAX_FEE_PER_GAS_WEI ?? DEV_FEE_CAP.maxFeePerGas,
    tip: e.CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI ?? DEV_FEE_CAP.maxPriorityFeePerGas,
  };
  if (cap.fee === 0n || cap.tip > cap.fee) {
    problems.push(
      'CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI / CHAIN_MAX_FEE_PER_GAS_WEI: the max fee must be positive and at least the priority fee',
    );
  }
  if (!e.CHAIN_RPC_URL) problems.push('CHAIN_RPC_URL: required when SETTLEMENT_MODE=onchain');
  if (!e.USDC_ADDRESS) problems.push('USDC_ADDRESS: required when SETTLEMENT_MODE=onchain');
  const usdc = e.USDC_ADDRESS && usdcAddressProblem(e.CHAIN_ID, e.USDC_ADDRESS, e.ALLOW_UNKNOWN_USDC);
  if (usdc) problems.push(usdc);
  // Outside production with the Privy keys unset the service verifies Privy tokens against DATA_DIR/dev-privy
  // (src/domain/identity/privy-setup.ts); production never does (without Privy keys: SIWE sign-in only).
  if (e.NODE_ENV !== 'production' && !e.PRIVY_APP_ID && !e.ALLOW_DEV_IDENTITY_ONCHAIN) {
    problems.push(
      'PRIVY_APP_ID / PRIVY_VERIFICATION_KEY: SETTLEMENT_MODE=onchain refuses the development identity (DATA_DIR/dev-privy: whoever reads it signs in as any wallet); set the Privy keys, or ALLOW_DEV_IDENTITY_ONCHAIN=true on a local chain',
    );
  }
  const key = secretOf(e, 'SETTLEMENT_PRIVATE_KEY', problems, read);
  const address = settlementAddressOf(e, key, problems);
  const mnemonic = secretOf(e, 'DEPOSIT_MNEMONIC', problems, read);
  const bad = mnemonic === undefined ? null : mnemonicProblem(mnemonic);
  if (bad) problems.push(`DEPOSIT_MNEMONIC: ${bad} (the value is not shown)`);
  if ((mnemonic !== undefined || e.DEPOSIT_XPUB !== undefined) && e.NODE_ENV === 'production' && e.DEPOSIT_ACCOUNT_INDEX === undefined) {
    problems.push(
      "DEPOSIT_ACCOUNT_INDEX: required when NODE_ENV=production with DEPOSIT_MNEMONIC or DEPOSIT_XPUB (this deployment's own BIP-44 account: two deployments sharing a mnemonic must never derive one address)",
    );
  }
  if (!bad) xpubProblems(e, mnemonic, problems);
  if (problems.length > before) return undefined;
  return {
    rpcUrl: e.CHAIN_RPC_URL!,
    chainId: e.CHAIN_ID,
    usdcAddress: e.USDC_ADDRESS as `0x${string}`,
    settlementAddress: address!,
    settlementKey: key === undefined ? undefined : new Secret(key),
    signerUrl: e.SETTLEMENT_SIGNER_URL,
    allowUnknownUsdc: e.ALLOW_UNKNOWN_USDC,
    depositMnemonic: mnemonic === undefined ? undefined : new Secret(mnemonic.split(/\s+/).join(' ')),
    depositXpub: e.DEPOSIT_XPUB?.trim(),
    depositAccountIndex: e.DEPOSIT_ACCOUNT_INDEX ?? 0,
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
