// Circle's own USDC on a test chain: FiatTokenV2_2 behind FiatTokenProxy (compiled at test time from the npm
// package's sources, src/testing/circle-usdc-build.ts), deployed as Circle's deploy script does
// (scripts/deploy/deploy-fiat-token.s.sol and DeployImpl.sol in circlefin/stablecoin-evm):
//   1. the external library SignatureChecker, linked into FiatTokenV2_2;
//   2. the implementation, initialised with throwaway values so nobody can initialise it later;
//   3. FiatTokenProxy(implementation), whose admin is then changed to a separate account (the proxy admin can
//      call only the proxy's own functions, never the token's);
//   4. through the proxy: initialize(name, symbol, "USD", 6, masterMinter, pauser, blacklister, owner),
//      initializeV2(name), initializeV2_1(owner), initializeV2_2([], symbol);
//   5. configureMinter(minter, allowance) from the master minter.
// Circle's script makes a MasterMinter contract the master minter; here the master minter is an account, which
// changes nothing the token does. Blacklist and pause are the real ones: a transfer from or to a blacklisted
// account reverts with `Blacklistable: account is blacklisted`, any transfer while paused with `Pausable: paused`.
// Roles are anvil's funded default accounts (src/testing/anvil.ts ANVIL_KEYS): the faucet (0) deploys and is the
// minter; 5-9 are the proxy admin, master minter, pauser, blacklister and owner; 1 (the settlement wallet) is never
// a role. Each role's transactions are sent one at a time and wait to be mined.
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  maxUint256,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ANVIL_KEYS } from './anvil.js';
import { circleUsdcBuild, linkFiatToken } from './circle-usdc-build.js';

export interface CircleUsdcRoles {
  /** Deploys everything; also the minter (src/testing/chain.ts's faucet). */
  deployer: PrivateKeyAccount;
  minter: PrivateKeyAccount;
  /** The proxy's admin: can upgrade the proxy, cannot call the token through it. */
  proxyAdmin: PrivateKeyAccount;
  masterMinter: PrivateKeyAccount;
  pauser: PrivateKeyAccount;
  blacklister: PrivateKeyAccount;
  /** Owner, and the lost-and-found of initializeV2_1. */
  owner: PrivateKeyAccount;
}

export function circleUsdcRoles(): CircleUsdcRoles {
  const key = (i: number) => privateKeyToAccount(ANVIL_KEYS[i]!);
  return { deployer: key(0), minter: key(0), proxyAdmin: key(5), masterMinter: key(6), pauser: key(7), blacklister: key(8), owner: key(9) };
}

export interface CircleUsdc {
  /** The token: the proxy's address (what USDC_ADDRESS names). */
  address: Address;
  implementation: Address;
  signatureChecker: Address;
  roles: CircleUsdcRoles;
  /** FiatTokenV2_2's ABI (call it at `address`). */
  abi: Abi;
  /** `solc 0.6.12+commit...` */
  compiler: string;
  /** The minter mints `micros` to `to` (mined). */
  mint(to: Address, micros: bigint): Promise<Hash>;
  /** The blacklister blacklists `account`: every transfer from or to it, and every approval by it, reverts. */
  blacklist(account: Address): Promise<Hash>;
  unBlacklist(account: Address): Promise<Hash>;
  isBlacklisted(account: Address): Promise<boolean>;
  /** The pauser pauses the token: every transfer, mint and approval reverts. */
  pause(): Promise<Hash>;
  unpause(): Promise<Hash>;
  paused(): Promise<boolean>;
}

export interface DeployCircleUsdcOptions {
  rpcUrl: string;
  chainId: number;
  /** Runs each transaction of the deployer (= minter) in the caller's queue for that account, if it has one. */
  serial?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Defaults: "USD Coin", "USDC" (as on Base). */
  name?: string;
  symbol?: string;
}

const THROWAWAY: Address = '0x0000000000000000000000000000000000000001';

export async function deployCircleUsdc(opts: DeployCircleUsdcOptions): Promise<CircleUsdc> {
  const build = circleUsdcBuild();
  const roles = circleUsdcRoles();
  const name = opts.name ?? 'USD Coin';
  const symbol = opts.symbol ?? 'USDC';
  const transport = http(opts.rpcUrl);
  const chain = {
    id: opts.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  };
  const client = createPublicClient({ transport, pollingInterval: 50 }) as PublicClient;
  const queues = new Map<Address, Promise<unknown>>();
  const inQueue = <T>(account: PrivateKeyAccount, fn: () => Promise<T>): Promise<T> => {
    if (account.address === roles.deployer.address && opts.serial) return opts.serial(fn);
    const run = (queues.get(account.address) ?? Promise.resolve()).then(fn, fn);
    queues.set(
      account.address,
      run.catch(() => undefined),
    );
    return run;
  };
  const mined = async (hash: Hash) => {
    const r = await client.waitForTransactionReceipt({ hash, timeout: 60_000 });
    if (r.status !== 'success') throw new Error(`circle-usdc: transaction ${hash} reverted`);
    return r;
  };
  const wallet = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport });
  const deploy = (abi: Abi, bytecode: Hex, args: unknown[] = []) =>
    inQueue(roles.deployer, async () =>
      getAddress((await mined(await wallet(roles.deployer).deployContract({ abi, bytecode, args }))).contractAddress!),
    );
  const write = (account: PrivateKeyAccount, address: Address, abi: Abi, functionName: string, args: unknown[]) =>
    inQueue(account, async () => (await mined(await wallet(account).writeContract({ address, abi, functionName, args }))).transactionHash);
  const token = build.FiatTokenV2_2.abi;

  const signatureChecker = await deploy(build.SignatureChecker.abi, build.SignatureChecker.bytecode);
  const implementation = await deploy(token, linkFiatToken(build, signatureChecker));
  const d = roles.deployer;
  await write(d, implementation, token, 'initialize', ['', '', '', 0, THROWAWAY, THROWAWAY, THROWAWAY, THROWAWAY]);
  await write(d, implementation, token, 'initializeV2', ['']);
  await write(d, implementation, token, 'initializeV2_1', [THROWAWAY]);
  await write(d, implementation, token, 'initializeV2_2', [[], '']);
  const address = await deploy(build.FiatTokenProxy.abi, build.FiatTokenProxy.bytecode, [implementation]);
  await write(d, address, build.FiatTokenProxy.abi, 'changeAdmin', [roles.proxyAdmin.address]);
  const r = roles;
  await write(d, address, token, 'initialize', [
    name,
    symbol,
    'USD',
    6,
    r.masterMinter.address,
    r.pauser.address,
    r.blacklister.address,
    r.owner.address,
  ]);
  await write(d, address, token, 'initializeV2', [name]);
  await write(d, address, token, 'initializeV2_1', [r.owner.address]);
  await write(d, address, token, 'initializeV2_2', [[], symbol]);
  await write(r.masterMinter, address, token, 'configureMinter', [r.minter.address, maxUint256]);

  const read = <T>(functionName: string, args: unknown[] = []) =>
    client.readContract({ address, abi: token, functionName, args }) as Promise<T>;
  return {
    address,
    implementation,
    signatureChecker,
    roles,
    abi: token,
    compiler: build.compiler,
    mint: (to, micros) => write(r.minter, address, token, 'mint', [to, micros]),
    blacklist: (account) => write(r.blacklister, address, token, 'blacklist', [account]),
    unBlacklist: (account) => write(r.blacklister, address, token, 'unBlacklist', [account]),
    isBlacklisted: (account) => read<boolean>('isBlacklisted', [account]),
    pause: () => write(r.pauser, address, token, 'pause', []),
    unpause: () => write(r.pauser, address, token, 'unpause', []),
    paused: () => read<boolean>('paused'),
  };
}
