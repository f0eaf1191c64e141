// Circle's USDC on the chains where USDC_ADDRESS must be it (docs/configuration.md, "Onchain settlement"): read
// by the chain settings (src/config/chain.ts) and by the start-up check of the token (src/adapters/chain/chain.ts).
// Reads no environment.

/**
 * Circle's native USDC per chain (developers.circle.com, "USDC contract addresses"): on these chains USDC_ADDRESS
 * must be it unless ALLOW_UNKNOWN_USDC=true. Bridged USDbC (Base) has 6 decimals too; only the address tells.
 */
export const CIRCLE_USDC: Readonly<Record<number, `0x${string}`>> = {
  8453: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  84532: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
};

/** What Circle's USDC answers for name() and symbol() on those chains (its testnet contracts are named `USDC`). */
export const CIRCLE_USDC_IDENTITY: Readonly<Record<number, { name: string; symbol: string }>> = {
  8453: { name: 'USD Coin', symbol: 'USDC' },
  84532: { name: 'USDC', symbol: 'USDC' },
};

/**
 * Null when the token read at start-up is what USDC_ADDRESS must name: 6 decimals everywhere, and on Base and
 * Base Sepolia Circle's name and symbol too unless ALLOW_UNKNOWN_USDC=true.
 */
export function usdcIdentityProblem(
  chainId: number,
  read: { name: string; symbol: string; decimals: number },
  allowUnknown: boolean,
): string | null {
  if (read.decimals !== 6) return `USDC_ADDRESS: the token has ${read.decimals} decimals; USDC has 6`;
  const want = CIRCLE_USDC_IDENTITY[chainId];
  if (!want || allowUnknown || (read.name === want.name && read.symbol === want.symbol)) return null;
  return `USDC_ADDRESS: the token on chain ${chainId} reads name ${JSON.stringify(read.name)} and symbol ${JSON.stringify(read.symbol)}; Circle's USDC reads ${JSON.stringify(want.name)} and ${JSON.stringify(want.symbol)}`;
}

/** Null when USDC_ADDRESS may be used on CHAIN_ID (docs/configuration.md, "Onchain settlement"). */
export function usdcAddressProblem(chainId: number, address: string, allowUnknown: boolean): string | null {
  const circle = CIRCLE_USDC[chainId];
  if (!circle || allowUnknown || circle.toLowerCase() === address.toLowerCase()) return null;
  return `USDC_ADDRESS: on chain ${chainId} it must be Circle's USDC ${circle} (${address} is another token, e.g. bridged USDbC); set ALLOW_UNKNOWN_USDC=true only for a test token`;
}
