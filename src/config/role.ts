// What one process role may be given (docs/operations.md, "Keys and the signer"): in production an API process
// (--role=api) is given no signing secret. It needs the settlement wallet's address (SETTLEMENT_ADDRESS) and, for
// custodial deposit addresses, DEPOSIT_XPUB; the workers sign and sweep. Reads no environment: loadConfig
// (src/config/load.ts) adds these problems for the role src/process.ts names, so the start is refused (exit 78).
import type { Parsed } from './schema.js';

type Secrets = Partial<
  Pick<Parsed, 'NODE_ENV' | 'SETTLEMENT_PRIVATE_KEY' | 'SETTLEMENT_PRIVATE_KEY_FILE' | 'DEPOSIT_MNEMONIC' | 'DEPOSIT_MNEMONIC_FILE'>
>;

export function roleProblems(e: Secrets, role: 'all' | 'api' | 'workers'): string[] {
  if (role !== 'api' || e.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  if (e.SETTLEMENT_PRIVATE_KEY !== undefined || e.SETTLEMENT_PRIVATE_KEY_FILE !== undefined) {
    problems.push(
      'SETTLEMENT_PRIVATE_KEY (or SETTLEMENT_PRIVATE_KEY_FILE): refused in an API process when NODE_ENV=production (only the workers sign): give it SETTLEMENT_ADDRESS instead',
    );
  }
  if (e.DEPOSIT_MNEMONIC !== undefined || e.DEPOSIT_MNEMONIC_FILE !== undefined) {
    problems.push(
      'DEPOSIT_MNEMONIC (or DEPOSIT_MNEMONIC_FILE): refused in an API process when NODE_ENV=production (only the workers sweep): give it DEPOSIT_XPUB (npm run deposit:xpub prints it) for custodial deposit addresses',
    );
  }
  return problems;
}
