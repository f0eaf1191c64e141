// The sanctions oracle (SANCTIONS_ORACLE_ADDRESS; docs/operations.md, "Custody"): a contract with Chainalysis's
// SanctionsList interface, `isSanctioned(address) returns (bool)`, read through CHAIN_RPC_URL before a
// withdrawal's transaction opens. Never inferred from silence: when the node does not answer, the answer is
// "unknown" and the withdrawal is refused for now (503, nothing stored), never sent unscreened.
import { createPublicClient, getAddress, parseAbi, type Address } from 'viem';
import type { Logger } from '../../logger.js';
import { redactUrls } from '../../redact-url.js';
import { closeTransport, rpcTransport } from '../../adapters/chain/transport.js';

const ABI = parseAbi(['function isSanctioned(address addr) view returns (bool)']);

export interface SanctionsOracle {
  /** true / false as the contract answers at the latest block; 'unknown' when the node did not answer. */
  check(address: string): Promise<boolean | 'unknown'>;
  close(): Promise<void>;
}

export function createSanctionsOracle(s: { address: Address; rpcUrl: string }, log: Pick<Logger, 'warn'>): SanctionsOracle {
  // One short retry: a user waits on this read.
  const transport = rpcTransport(s.rpcUrl, { timeout: 5_000, retryCount: 1 });
  const client = createPublicClient({ transport });
  return {
    async check(address) {
      try {
        return await client.readContract({ address: s.address, abi: ABI, functionName: 'isSanctioned', args: [getAddress(address)] });
      } catch (err) {
        log.warn(
          { err: redactUrls((err as Error).message.split('\n')[0]!), oracle: s.address },
          'the sanctions oracle could not be read; the withdrawal is refused for now',
        );
        return 'unknown';
      }
    },
    close: () => closeTransport(client.transport),
  };
}
