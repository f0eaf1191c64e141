// What one process role may hold (docs/operations.md, "Keys and the signer"): in production an API process
// (--role=api) never loads a signing secret. It needs the settlement wallet's address (SETTLEMENT_ADDRESS) and, for
// custodial deposit addresses, DEPOSIT_XPUB; the workers sign and sweep. Reads no environment: src/process.ts
// checks the loaded config against the process's role before anything starts (exit 78 like any config error).
import type { Config } from './config.js';

export function roleProblems(config: Pick<Config, 'nodeEnv' | 'chain'>, role: 'all' | 'api' | 'workers'): string[] {
  const { chain } = config;
  if (role !== 'api' || config.nodeEnv !== 'production' || !chain) return [];
  const problems: string[] = [];
  if (chain.settlementKey) {
    problems.push(
      'SETTLEMENT_PRIVATE_KEY: refused in an API process when NODE_ENV=production (only the workers sign): give it SETTLEMENT_ADDRESS instead',
    );
  }
  if (chain.depositMnemonic) {
    problems.push(
      'DEPOSIT_MNEMONIC: refused in an API process when NODE_ENV=production (only the workers sweep): give it DEPOSIT_XPUB (npx tsx scripts/deposit-xpub.ts prints it) for custodial deposit addresses',
    );
  }
  return problems;
}
