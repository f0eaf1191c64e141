// Multicall3 on anvil (src/domain/settlement/onchain/balances.ts): installs contracts/MockMulticall3.sol's code
// (Multicall3's aggregate3) at Multicall3's address, where it sits on Base, so the reconciliation's balance reads
// take the path they take there. The runtime code comes from an eth_call of the creation code (what a creation
// returns), as src/testing/op-stack.ts does: nothing is mined and no account's nonce moves.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Hex } from 'viem';
import { MULTICALL3_ADDRESS } from '../domain/settlement/onchain/balances.js';
import type { Anvil } from './anvil.js';

const BUILD = fileURLToPath(new URL('../../contracts/build/MockMulticall3.json', import.meta.url));

export async function installMulticall3(anvil: Anvil): Promise<void> {
  const { bytecode } = JSON.parse(readFileSync(BUILD, 'utf8')) as { bytecode: Hex };
  const runtime = await anvil.rpc<Hex>('eth_call', [{ data: bytecode }, 'latest']);
  await anvil.rpc('anvil_setCode', [MULTICALL3_ADDRESS, runtime]);
}
