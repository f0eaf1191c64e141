// The USDC balances of many addresses at once, for the reconciliation (reconcile.ts; docs/settlement.md,
// "Reconciliation and chain status"). Where Multicall3 is deployed (Base and most EVM chains, at
// MULTICALL3_ADDRESS; detected by its code, a positive answer remembered per process), MULTICALL_CHUNK balanceOf
// calls go in one eth_call of its aggregate3, and MULTICALL_GROUP such eth_calls in one JSON-RPC batch request
// (src/adapters/chain/transport.ts): 10,000 addresses cost 20 calls in 10 HTTP requests (anvil refuses a batch of 10 such calls, ~2 MB). Elsewhere (a fresh anvil, a chain without it),
// or when a multicall fails (e.g. a provider's eth_call gas cap), one balanceOf call per address, RECONCILE_CHUNK of
// them per JSON-RPC batch request. Either way, never all at once.
import { erc20Abi, type Address } from 'viem';
import type { Chain } from '../../../adapters/chain/chain.js';

/** Multicall3's address on Base, Base Sepolia and most EVM chains (github.com/mds1/multicall). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** balanceOf calls per aggregate3 eth_call (about 5,000 gas each: far below providers' eth_call gas caps). */
export const MULTICALL_CHUNK = 500;
/** aggregate3 eth_calls in flight at once (one JSON-RPC batch request over http). */
export const MULTICALL_GROUP = 2;
/** balanceOf calls in flight at once without Multicall3 (one JSON-RPC batch request over http). */
export const RECONCILE_CHUNK = 100;

/** Chains on which Multicall3's code was seen (a chain without it is asked again next time: one eth_getCode). */
const withMulticall = new WeakSet<Chain>();

export async function hasMulticall3(chain: Chain): Promise<boolean> {
  if (withMulticall.has(chain)) return true;
  const code = await chain.client.getCode({ address: MULTICALL3_ADDRESS });
  if (!code || code === '0x') return false;
  withMulticall.add(chain);
  return true;
}

/** One balanceOf call per address, RECONCILE_CHUNK at a time. */
export async function balancesByBatch(chain: Chain, owners: readonly Address[]): Promise<bigint[]> {
  const out: bigint[] = [];
  for (let i = 0; i < owners.length; i += RECONCILE_CHUNK) {
    out.push(...(await Promise.all(owners.slice(i, i + RECONCILE_CHUNK).map((a) => chain.tokenBalance(a)))));
  }
  return out;
}

/** MULTICALL_CHUNK balanceOf calls per aggregate3 eth_call, MULTICALL_GROUP eth_calls at a time; any failure throws. */
export async function balancesByMulticall(chain: Chain, owners: readonly Address[]): Promise<bigint[]> {
  const chunks: Address[][] = [];
  for (let i = 0; i < owners.length; i += MULTICALL_CHUNK) chunks.push(owners.slice(i, i + MULTICALL_CHUNK));
  const out: bigint[] = [];
  for (let g = 0; g < chunks.length; g += MULTICALL_GROUP) {
    const group = await Promise.all(
      chunks.slice(g, g + MULTICALL_GROUP).map((chunk) =>
        chain.client.multicall({
          contracts: chunk.map((owner) => ({
            address: chain.token,
            abi: erc20Abi,
            functionName: 'balanceOf' as const,
            args: [owner] as const,
          })),
          multicallAddress: MULTICALL3_ADDRESS,
          allowFailure: false,
          batchSize: 0, // chunked here
        }),
      ),
    );
    for (const balances of group) out.push(...balances);
  }
  return out;
}

/** The USDC balances of `owners`, in their order: by Multicall3 where deployed, else (or when it fails) one call each. */
export async function balancesOf(chain: Chain, owners: readonly Address[]): Promise<bigint[]> {
  if (owners.length === 0) return [];
  if (await hasMulticall3(chain)) {
    try {
      return await balancesByMulticall(chain, owners);
    } catch {
      // A node that cannot run it (gas cap, a code-less fork): the plain reads below; their failure is the run's.
    }
  }
  return balancesByBatch(chain, owners);
}
