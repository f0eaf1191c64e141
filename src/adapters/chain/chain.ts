// The one door to the chain (SETTLEMENT_MODE=onchain; docs/settlement.md): viem's public client over
// CHAIN_RPC_URL (http or ws; several endpoints comma-separated: transport.ts), the settlement wallet's signer (its
// key, or SETTLEMENT_SIGNER_URL: remote-signer.ts; the node never holds the key),
// the token (ERC-20, USDC_ADDRESS), the start-up checks, and the custodial deposit addresses derived from
// DEPOSIT_MNEMONIC along BIP-44 m/44'/60'/<DEPOSIT_ACCOUNT_INDEX>'/0/<index>, or from DEPOSIT_XPUB without a key
// (an API process: src/config/deposit-xpub.ts).
import { createPublicClient, erc20Abi, getAddress, toHex, type Address, type PublicClient, type Transport } from 'viem';
import { privateKeyToAccount, type HDKey, type PrivateKeyAccount } from 'viem/accounts';
import type { ChainSettings } from '../../config/chain.js';
import { usdcIdentityProblem } from '../../config/usdc.js';
import { depositParentNode, parseDepositXpub, xpubDepositAddresses } from '../../config/deposit-xpub.js';
import { redactUrls } from '../../redact-url.js';
import { settlementSigner, type ChainSigner } from './remote-signer.js';
import { closeTransport, rpcTransport } from './transport.js';

export { erc20Abi };

/** USDC's decimals: 1 token unit = 1 micro, so ledger micros and token units are the same integers. */
export const USDC_DECIMALS = 6;

export interface Chain {
  readonly settings: ChainSettings;
  readonly client: PublicClient;
  /** The settlement wallet's signer (holds the pooled USDC and the gas, signs every transaction): its key or SETTLEMENT_SIGNER_URL (remote-signer.ts). */
  readonly account: ChainSigner;
  readonly settlementAddress: Address;
  readonly token: Address;
  /** The custodial deposit address of this index (from DEPOSIT_MNEMONIC, else DEPOSIT_XPUB); undefined without either. */
  depositAddress(index: bigint): Address | undefined;
  /** The custodial deposit address's signing account (sweeps, docs/settlement-custodial.md); throws without DEPOSIT_MNEMONIC. */
  depositAccount(index: bigint): PrivateKeyAccount;
  /** USDC units (= micros) held by an address. */
  tokenBalance(owner: Address): Promise<bigint>;
  allowance(owner: Address, spender: Address): Promise<bigint>;
  close(): Promise<void>;
}

export class ChainCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainCheckError';
  }
}

function transportOf(value: string): Transport {
  // Short timeouts and few retries: a settlement waiting on the chain polls again on its own.
  return rpcTransport(value, { timeout: 10_000, retryCount: 2 });
}

/**
 * The accounts m/44'/60'/<account>'/0/<index> of a BIP-39 phrase (no passphrase), as viem's mnemonicToAccount
 * derives them (its accountIndex and addressIndex), but with the seed (PBKDF2, native) and the m/44'/60'/<account>'/0
 * node computed once: about 1 ms an index instead of ~70 ms (src/adapters/chain/chain.test.ts compares
 * both). `account` is the deployment's DEPOSIT_ACCOUNT_INDEX: two deployments sharing one mnemonic with different
 * accounts never derive one address (docs/settlement-custodial.md).
 */
export function depositKeyring(mnemonic: string, account = 0): (index: bigint) => PrivateKeyAccount {
  if (!Number.isInteger(account) || account < 0 || account >= 2 ** 31)
    throw new RangeError(`deposit account ${account} is outside 0..2^31-1`);
  let base: HDKey | undefined;
  return (index) => {
    if (index < 0n || index >= 2n ** 31n) throw new RangeError(`deposit index ${index} is outside 0..2^31-1`);
    base ??= depositParentNode(mnemonic, account);
    return privateKeyToAccount(toHex(base.deriveChild(Number(index)).privateKey!));
  };
}

/** DEPOSIT_XPUB's addresses (config checked it: src/config/chain.ts); undefined without it. */
function xpubAddressesOf(settings: ChainSettings): ((index: bigint) => Address) | undefined {
  if (!settings.depositXpub) return undefined;
  const parsed = parseDepositXpub(settings.depositXpub, settings.depositAccountIndex);
  if ('problem' in parsed) throw new ChainCheckError(`DEPOSIT_XPUB: ${parsed.problem}`);
  return xpubDepositAddresses(parsed.node);
}

/** Builds the clients; talks to no node (see checkChain). */
export function createChain(settings: ChainSettings): Chain {
  const transport = transportOf(settings.rpcUrl);
  const client = createPublicClient({ transport, pollingInterval: settings.pollMs }) as PublicClient;
  const account = settlementSigner(settings);
  const token = getAddress(settings.usdcAddress);
  const derived = new Map<bigint, Address>();
  const keyring = settings.depositMnemonic ? depositKeyring(settings.depositMnemonic.reveal(), settings.depositAccountIndex) : undefined;
  const fromXpub = keyring ? undefined : xpubAddressesOf(settings);
  return {
    settings,
    client,
    account,
    settlementAddress: account.address,
    token,
    depositAddress(index) {
      if (!keyring && !fromXpub) return undefined;
      let a = derived.get(index);
      if (!a) {
        a = keyring ? keyring(index).address : fromXpub!(index);
        derived.set(index, a);
      }
      return a;
    },
    depositAccount(index) {
      if (!keyring) throw new Error('DEPOSIT_MNEMONIC is not set: there are no custodial deposit addresses');
      return keyring(index);
    },
    tokenBalance: (owner) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
    allowance: (owner, spender) =>
      client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] }),
    close: () => closeTransport(client.transport),
  };
}

/**
 * The start-up checks: the node answers the configured CHAIN_ID, and USDC_ADDRESS is a contract whose
 * decimals() is 6 and, on Base and Base Sepolia, whose name() and symbol() are Circle's (USDbC has 6 decimals
 * too: src/config/usdc.ts usdcIdentityProblem). Throws ChainCheckError naming the key at fault (never a secret).
 */
export async function checkChain(chain: Chain): Promise<{ chainId: number; settlementAddress: Address; gasWei: bigint }> {
  const { settings, client, token } = chain;
  let chainId: number;
  try {
    chainId = await client.getChainId();
  } catch (err) {
    throw new ChainCheckError(`CHAIN_RPC_URL: the node did not answer eth_chainId (${shortReason(err)})`);
  }
  if (chainId !== settings.chainId) {
    throw new ChainCheckError(`CHAIN_ID: the node at CHAIN_RPC_URL is on chain ${chainId}, not the configured ${settings.chainId}`);
  }
  let read: { name: string; symbol: string; decimals: number };
  try {
    const [name, symbol, decimals] = await Promise.all(
      (['name', 'symbol', 'decimals'] as const).map((functionName) => client.readContract({ address: token, abi: erc20Abi, functionName })),
    );
    read = { name: name as string, symbol: symbol as string, decimals: decimals as number };
  } catch (err) {
    throw new ChainCheckError(
      `USDC_ADDRESS: ${token} did not answer name(), symbol() and decimals() on chain ${chainId} (${shortReason(err)})`,
    );
  }
  const problem = usdcIdentityProblem(chainId, read, settings.allowUnknownUsdc);
  if (problem) throw new ChainCheckError(`${problem} (${token})`);
  const gasWei = await client.getBalance({ address: chain.settlementAddress });
  return { chainId, settlementAddress: chain.settlementAddress, gasWei };
}

/**
 * The first line of an RPC error, without the request body viem appends (it can be long), its URLs reduced to
 * scheme and host (a provider's key sits in the path or the query string): safe to log, store and serve.
 */
export function shortReason(err: unknown): string {
  const e = err as { shortMessage?: string; message?: string };
  return redactUrls((e.shortMessage ?? e.message ?? String(err)).split('\n')[0]!).slice(0, 200);
}
