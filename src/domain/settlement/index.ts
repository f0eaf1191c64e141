import type { ChainSettings } from '../../config/chain.js';
import type { Em } from '../../db/orm.js';
import type { Logger } from '../../logger.js';
import type { SettlementAdapter } from './adapter.js';
import { createDemoSettlement } from './demo.js';
import { createOnchainSettlement, startOnchain } from './onchain/adapter.js';
import { createChain } from '../../adapters/chain/chain.js';

export interface SettlementSettings {
  settlementMode: 'demo' | 'onchain';
  demoOnchainBalanceMicros: bigint;
  chain: ChainSettings | undefined;
  /** COLD_WALLET_ADDRESS and HOT_WALLET_MAX_MICROS (src/config/custody.ts). */
  custody?: { coldWalletAddress: `0x${string}` | null; hotWalletMaxMicros: bigint | null };
}

/** The demo adapter (SETTLEMENT_MODE=demo): no chain, nothing to check. */
export function createSettlementAdapter(opts: { demoOnchainBalanceMicros: bigint }): SettlementAdapter {
  return createDemoSettlement({ onchainBalanceMicros: opts.demoOnchainBalanceMicros });
}

/**
 * The adapter of SETTLEMENT_MODE, opened once per process at start-up. Onchain: the node's chain id and the
 * token's decimals are checked first (a ChainCheckError refuses the start) and the nonce row is prepared.
 */
export async function openSettlement(s: SettlementSettings, em: Em, log: Logger): Promise<SettlementAdapter> {
  if (s.settlementMode === 'demo' || !s.chain) return createSettlementAdapter(s);
  const chain = createChain(s.chain);
  try {
    await startOnchain(em, chain, log);
  } catch (err) {
    await chain.close().catch(() => undefined);
    throw err;
  }
  const cold = s.custody?.coldWalletAddress && s.custody.hotWalletMaxMicros !== null ? s.custody : undefined;
  return createOnchainSettlement(chain, log, cold && { address: cold.coldWalletAddress!, hotMaxMicros: cold.hotWalletMaxMicros! });
}
