// A sanctions oracle with Chainalysis's SanctionsList interface (contracts/MockSanctionsOracle.sol, its committed
// build) deployed on a test chain, for the withdrawal destination rules (issue 34: SANCTIONS_ORACLE_ADDRESS refuses
// an address for which `isSanctioned(address)` is true). `chain.deploySanctionsOracle()` (src/testing/chain.ts)
// deploys one owned by the chain's faucet; `sanction` / `unsanction` are the owner's addToSanctionsList /
// removeFromSanctionsList, mined before they return.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, getAddress, http, type Abi, type Address, type Hash, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

const BUILD = fileURLToPath(new URL('../../contracts/build/MockSanctionsOracle.json', import.meta.url));

export interface SanctionsOracle {
  /** What SANCTIONS_ORACLE_ADDRESS names. */
  address: Address;
  owner: PrivateKeyAccount;
  abi: Abi;
  /** addToSanctionsList(addresses), mined. */
  sanction(...addresses: Address[]): Promise<Hash>;
  /** removeFromSanctionsList(addresses), mined. */
  unsanction(...addresses: Address[]): Promise<Hash>;
  isSanctioned(address: Address): Promise<boolean>;
}

export interface DeploySanctionsOracleOptions {
  rpcUrl: string;
  chainId: number;
  owner: PrivateKeyAccount;
  /** Runs each transaction of `owner` in the caller's queue for that account, if it has one. */
  serial?: <T>(fn: () => Promise<T>) => Promise<T>;
}

export async function deploySanctionsOracle(opts: DeploySanctionsOracleOptions): Promise<SanctionsOracle> {
  const build = JSON.parse(readFileSync(BUILD, 'utf8')) as { abi: Abi; bytecode: Hex };
  const transport = http(opts.rpcUrl);
  const chain = {
    id: opts.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  };
  const client = createPublicClient({ transport, pollingInterval: 50 });
  const wallet = createWalletClient({ account: opts.owner, chain, transport });
  const serial = opts.serial ?? (<T>(fn: () => Promise<T>) => fn());
  const mined = async (hash: Hash) => {
    const r = await client.waitForTransactionReceipt({ hash, timeout: 60_000 });
    if (r.status !== 'success') throw new Error(`sanctions oracle: transaction ${hash} reverted`);
    return r;
  };
  const address = await serial(async () =>
    getAddress((await mined(await wallet.deployContract({ abi: build.abi, bytecode: build.bytecode }))).contractAddress!),
  );
  const write = (functionName: string, addresses: Address[]) =>
    serial(
      async () => (await mined(await wallet.writeContract({ address, abi: build.abi, functionName, args: [addresses] }))).transactionHash,
    );
  return {
    address,
    owner: opts.owner,
    abi: build.abi,
    sanction: (...addresses) => write('addToSanctionsList', addresses),
    unsanction: (...addresses) => write('removeFromSanctionsList', addresses),
    isSanctioned: (a) => client.readContract({ address, abi: build.abi, functionName: 'isSanctioned', args: [a] }) as Promise<boolean>,
  };
}
