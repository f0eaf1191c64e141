// What the token would do with a transfer, asked before anything is signed (docs/settlement.md, "Wait, don't
// fail"). Circle's USDC (FiatTokenV2_2) can be paused by its pauser and refuses blacklisted accounts (either side
// of a transfer); other ERC-20s may have neither function, and then the answer is "no" (a call to a function a
// contract lacks reverts). A node that does not answer throws: the caller retries, it never guesses.
import { parseAbi, type Address, type Hex } from 'viem';
import type { Chain } from '../../../../adapters/chain/chain.js';

const FIAT_TOKEN = parseAbi(['function paused() view returns (bool)', 'function isBlacklisted(address account) view returns (bool)']);

/** An error that says the contract answered "no such function" or reverted, as opposed to a node that did not answer. */
export function isContractRefusal(err: unknown): boolean {
  for (let e = err as { name?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (/ContractFunction(Reverted|ZeroData)Error|ExecutionRevertedError|CallExecutionError|RawContractError/.test(e.name ?? ''))
      return true;
  }
  return false;
}

async function orFalse(read: () => Promise<boolean>): Promise<boolean> {
  try {
    return await read();
  } catch (err) {
    if (isContractRefusal(err)) return false;
    throw err;
  }
}

export const tokenPaused = (chain: Chain) =>
  orFalse(() => chain.client.readContract({ address: chain.token, abi: FIAT_TOKEN, functionName: 'paused' }));

export const blacklisted = (chain: Chain, account: Address) =>
  orFalse(() => chain.client.readContract({ address: chain.token, abi: FIAT_TOKEN, functionName: 'isBlacklisted', args: [account] }));

/**
 * A dry run of the call from `from` (eth_estimateGas at the latest block): null when it would succeed, else the
 * revert's reason text. A node that does not answer throws.
 */
export async function simulate(chain: Chain, from: Address, to: Address, data: Hex | undefined, value: bigint): Promise<string | null> {
  try {
    await chain.client.estimateGas({ account: from, to, data, value });
    return null;
  } catch (err) {
    if (!isContractRefusal(err) && !/revert/i.test(String((err as Error).message))) throw err;
    const e = err as { shortMessage?: string; details?: string };
    return (e.details ?? e.shortMessage ?? 'reverted').split('\n')[0]!.slice(0, 200);
  }
}
