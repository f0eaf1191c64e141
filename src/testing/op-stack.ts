// An OP-stack L1 data fee on anvil (docs/settlement.md, "Fees"): installs contracts/MockGasPriceOracle.sol's code
// at the GasPriceOracle predeploy address, where viem's estimateL1Fee (src/domain/settlement/onchain/chain-tx/
// l1-fee.ts) asks for getL1Fee, and sets the fee it answers. The runtime code comes from an eth_call of the
// contract's creation code (what a creation returns), so nothing is mined and no account's nonce moves.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toHex, type Hex } from 'viem';
import type { Anvil } from './anvil.js';

export const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F';
const BUILD = fileURLToPath(new URL('../../contracts/build/MockGasPriceOracle.json', import.meta.url));

export interface L1FeeOracle {
  /** Every transaction's L1 data fee from now on, wei. */
  setL1Fee(wei: bigint): Promise<void>;
}

export async function installGasPriceOracle(anvil: Anvil, l1FeeWei: bigint): Promise<L1FeeOracle> {
  const { bytecode } = JSON.parse(readFileSync(BUILD, 'utf8')) as { bytecode: Hex };
  const runtime = await anvil.rpc<Hex>('eth_call', [{ data: bytecode }, 'latest']);
  await anvil.rpc('anvil_setCode', [GAS_PRICE_ORACLE, runtime]);
  const oracle: L1FeeOracle = {
    setL1Fee: async (wei) => {
      await anvil.rpc('anvil_setStorageAt', [GAS_PRICE_ORACLE, toHex(0, { size: 32 }), toHex(wei, { size: 32 })]);
    },
  };
  await oracle.setL1Fee(l1FeeWei);
  return oracle;
}
