// The custody rules a process applies to deposits and withdrawals (docs/operations.md, "Custody"), built once from
// the configuration: the withdrawal rules (minimum, fee, limits, review threshold), this deployment's own
// addresses (the USDC contract, the settlement wallet, COLD_WALLET_ADDRESS), the denylist file re-read while
// running, and the sanctions oracle when SANCTIONS_ORACLE_ADDRESS is set.
import type { Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import { Denylist } from '../domain/money/denylist.js';
import type { Custody } from '../domain/money/requests.js';
import { createSanctionsOracle } from '../domain/money/sanctions.js';
import { demoDepositAddress } from '../domain/settlement/demo.js';

export interface OpenCustody {
  custody: Custody;
  close(): Promise<void>;
}

export function openCustody(config: Pick<Config, 'custody' | 'chain' | 'settlementMode'>, log: Logger): OpenCustody {
  const c = config.custody;
  const denylist = new Denylist(c.denylist, log).start();
  const sanctions = c.sanctionsOracle && createSanctionsOracle(c.sanctionsOracle, log);
  // The settlement wallet's address (SETTLEMENT_ADDRESS, or its key's where this process holds it).
  const settlement = config.chain?.settlementAddress ?? null;
  const custody: Custody = {
    rules: {
      minMicros: c.withdrawalMinMicros,
      feeMicros: c.withdrawalFeeMicros,
      dailyLimitMicros: c.withdrawalDailyLimitMicros,
      hourlyLimitMicros: c.withdrawalsHourlyLimitMicros,
      reviewAboveMicros: c.withdrawalReviewAboveMicros,
    },
    depositMinMicros: c.depositMinMicros,
    addresses: { token: config.chain?.usdcAddress ?? null, settlement, cold: c.coldWalletAddress },
    denylist,
    sanctions,
    // Demo settlement hands every user a made-up deposit address that deposit_addresses does not list.
    ...(config.settlementMode === 'demo' ? { derivedDepositAddress: demoDepositAddress } : {}),
  };
  return {
    custody,
    async close() {
      denylist.stop();
      await sanctions?.close();
    },
  };
}
