// Custody settings of src/config/load.ts (docs/operations.md, "Custody"): the amounts, fee, limits, review threshold
// and destination rules of withdrawals, and the least pull deposit. Reads no environment: schema.ts spreads
// `custodyKeys` (schema-custody.ts) into the schema, load.ts hands the parsed keys to custodySettings().
import { readFileSync } from 'node:fs';
import { parseDenylist } from './denylist.js';
import type { Parsed } from './schema.js';

export interface CustodySettings {
  withdrawalMinMicros: bigint;
  withdrawalFeeMicros: bigint;
  depositMinMicros: bigint;
  /** null: no limit of that kind. */
  withdrawalDailyLimitMicros: bigint | null;
  withdrawalsHourlyLimitMicros: bigint | null;
  withdrawalReviewAboveMicros: bigint | null;
  /** EIP-55. */
  coldWalletAddress: `0x${string}` | null;
  /** HOT_WALLET_MAX_MICROS (requires COLD_WALLET_ADDRESS and SETTLEMENT_MODE=onchain); null: no cold sweep. */
  hotWalletMaxMicros: bigint | null;
  /** WITHDRAWAL_DENYLIST_FILE as read at start-up (lower-case addresses); re-read every `reloadMs`. */
  denylist: { file: string; addresses: string[]; reloadMs: number } | undefined;
  /** SANCTIONS_ORACLE_ADDRESS (EIP-55), read through CHAIN_RPC_URL. */
  sanctionsOracle: { address: `0x${string}`; rpcUrl: string } | undefined;
}

/** The custody settings, pushing every problem found (a bad denylist file stops the start, naming its lines). */
export function custodySettings(e: Parsed, problems: string[], read = (path: string) => readFileSync(path, 'utf8')): CustodySettings {
  const onchain = e.SETTLEMENT_MODE === 'onchain';
  const s: CustodySettings = {
    withdrawalMinMicros: e.WITHDRAWAL_MIN_MICROS ?? (onchain ? 1_000_000n : 1n),
    withdrawalFeeMicros: e.WITHDRAWAL_FEE_MICROS ?? 0n,
    depositMinMicros: e.DEPOSIT_MIN_MICROS ?? (onchain ? 1_000_000n : 1n),
    withdrawalDailyLimitMicros: e.WITHDRAWAL_DAILY_LIMIT_MICROS ?? null,
    withdrawalsHourlyLimitMicros: e.WITHDRAWALS_HOURLY_LIMIT_MICROS ?? null,
    withdrawalReviewAboveMicros: e.WITHDRAWAL_REVIEW_ABOVE_MICROS ?? null,
    coldWalletAddress: e.COLD_WALLET_ADDRESS ?? null,
    hotWalletMaxMicros: e.HOT_WALLET_MAX_MICROS ?? null,
    denylist: undefined,
    sanctionsOracle: undefined,
  };
  if (s.withdrawalDailyLimitMicros !== null && s.withdrawalDailyLimitMicros < s.withdrawalMinMicros) {
    problems.push(
      `WITHDRAWAL_DAILY_LIMIT_MICROS: must be at least WITHDRAWAL_MIN_MICROS (${s.withdrawalMinMicros}), or no withdrawal could pass`,
    );
  }
  if (s.hotWalletMaxMicros !== null && (!onchain || !s.coldWalletAddress)) {
    problems.push('HOT_WALLET_MAX_MICROS: requires SETTLEMENT_MODE=onchain and COLD_WALLET_ADDRESS (where the USDC above it goes)');
  }
  if (e.SANCTIONS_ORACLE_ADDRESS) {
    if (!e.CHAIN_RPC_URL) problems.push('SANCTIONS_ORACLE_ADDRESS: requires CHAIN_RPC_URL (the node the oracle is read through)');
    else s.sanctionsOracle = { address: e.SANCTIONS_ORACLE_ADDRESS, rpcUrl: e.CHAIN_RPC_URL };
  }
  const file = e.WITHDRAWAL_DENYLIST_FILE;
  if (file !== undefined) {
    try {
      const parsed = parseDenylist(read(file));
      for (const p of parsed.problems) problems.push(`WITHDRAWAL_DENYLIST_FILE: ${file} ${p}`);
      s.denylist = { file, addresses: parsed.addresses, reloadMs: e.WITHDRAWAL_DENYLIST_RELOAD_MS };
    } catch (err) {
      problems.push(`WITHDRAWAL_DENYLIST_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  return s;
}
