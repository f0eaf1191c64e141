// Base's L1 data fee (docs/settlement.md, "Fees"): on an OP-stack chain every transaction also pays for its bytes
// on Ethereum, usually more than its L2 execution fee; the affordability checks count it. viem's estimateL1Fee
// asks the chain's GasPriceOracle predeploy (0x420000000000000000000000000000000000000F) for getL1Fee(tx bytes).
// CHAIN_OP_STACK decides (auto: Base, Base Sepolia, OP Mainnet, OP Sepolia).
import type { Address } from 'viem';
import { estimateL1Fee } from 'viem/op-stack';
import type { Chain } from '../../../../adapters/chain/chain.js';
import type { TxSpec } from './drive.js';

export async function l1FeeWei(chain: Chain, from: Address, spec: TxSpec): Promise<bigint> {
  if (!chain.settings.opStack) return 0n;
  return estimateL1Fee(chain.client, { account: from, to: spec.to, data: spec.data, value: spec.value, chain: null });
}
