// A local chain ready for onchain settlement (tests, drills, `npm run chain:dev`): anvil
// (src/testing/anvil.ts), a 6-decimal USDC deployed by a faucet account that also mints, a settlement wallet, and
// `env`: what a service needs to run with SETTLEMENT_MODE=onchain against it. The USDC is either the small
// TestUSDC (contracts/TestUSDC.sol, its committed build; the default here) or, with `usdc: 'circle'`, Circle's own
// FiatTokenV2_2 behind its proxy (src/testing/circle-usdc.ts: blacklist and pause real, its admin helpers on
// `chain.usdc`). `fund`, `balanceOf`, `transfers` and the rest work the same on both. Contracts are deployed with
// automine, before interval mining (`blockTime`) starts, so a slow block time does not slow the start. The
// faucet is never the settlement wallet, so funding wallets while the service runs never competes for the
// settlement wallet's nonces.
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  parseAbiItem,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ANVIL_KEYS, startAnvil, type Anvil, type AnvilOptions } from './anvil.js';
import { deployCircleUsdc, type CircleUsdc } from './circle-usdc.js';
import { deploySanctionsOracle, type SanctionsOracle } from './sanctions-oracle.js';
import { freePort } from './private-servers.js';

const BUILD = fileURLToPath(new URL('../../contracts/build/TestUSDC.json', import.meta.url));
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** A BIP-39 phrase for custodial deposit addresses in tests (public; test chains only). */
export const TEST_DEPOSIT_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export interface TestChain {
  anvil: Anvil;
  client: PublicClient;
  token: Address;
  /** With `usdc: 'circle'`: Circle's USDC and its admin helpers (blacklist, pause, roles). */
  usdc: CircleUsdc | undefined;
  faucet: PrivateKeyAccount;
  settlement: PrivateKeyAccount;
  /** SETTLEMENT_MODE=onchain and the chain keys for a service process. */
  env: Record<string, string>;
  /** Mints USDC micros and/or sends gas (wei) to an address; waits for both to be mined. */
  fund(to: Address, opts: { usdcMicros?: bigint; gasWei?: bigint }): Promise<void>;
  /** A fresh wallet with gas (1 ETH) and `usdcMicros`. */
  newWallet(usdcMicros?: bigint): Promise<PrivateKeyAccount>;
  /** `from` approves `spender` for `amount` micros (mined). */
  approve(from: PrivateKeyAccount, spender: Address, amount: bigint): Promise<Hash>;
  /** `from` transfers `amount` micros to `to` (mined). */
  transfer(from: PrivateKeyAccount, to: Address, amount: bigint): Promise<Hash>;
  balanceOf(owner: Address): Promise<bigint>;
  /** Every Transfer log of the token (from block 0), optionally to one address. */
  transfers(to?: Address): Promise<Array<{ from: Address; to: Address; value: bigint; txHash: Hash; logIndex: number }>>;
  /** Deploys another TestUSDC with these decimals (for the start-up check's refusal). */
  deployToken(decimals: number): Promise<Address>;
  /** Deploys a sanctions oracle with Chainalysis's interface, owned by the faucet (src/testing/sanctions-oracle.ts). */
  deploySanctionsOracle(): Promise<SanctionsOracle>;
  stop(): Promise<void>;
}

export interface TestChainOptions extends AnvilOptions {
  confirmations?: number;
  /** USDC minted to the settlement wallet at start (the pool withdrawals are paid from). */
  settlementUsdcMicros?: bigint;
  /** Which USDC: `test` (contracts/TestUSDC.sol, the default) or `circle` (Circle's FiatTokenV2_2 behind its proxy). */
  usdc?: 'test' | 'circle';
}

export async function startTestChain(opts: TestChainOptions = {}): Promise<TestChain> {
  const anvil = await startAnvil({ ...opts, blockTime: undefined });
  try {
    const transport = http(anvil.url);
    const client = createPublicClient({ transport, pollingInterval: 50 }) as PublicClient;
    const faucet = privateKeyToAccount(ANVIL_KEYS[0]);
    const settlement = privateKeyToAccount(ANVIL_KEYS[1]);
    const chain = {
      id: anvil.chainId,
      name: 'anvil',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.url] } },
    };
    const wallet = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport });
    const mined = async (hash: Hash) => {
      // With interval mining (blockTime) the receipt comes with the next block; with automine at once.
      const r = await client.waitForTransactionReceipt({ hash, timeout: 60_000 });
      if (r.status !== 'success') throw new Error(`test chain: transaction ${hash} reverted`);
      return hash;
    };
    // One sender at a time per faucet: viem reads the pending nonce per send.
    let queue: Promise<unknown> = Promise.resolve();
    const serial = <T>(fn: () => Promise<T>): Promise<T> => {
      const run = queue.then(fn, fn);
      queue = run.catch(() => undefined);
      return run;
    };
    const build = JSON.parse(readFileSync(BUILD, 'utf8')) as { abi: Abi; bytecode: Hex };
    const deploy = async (decimals: number) => {
      const hash = await serial(() => wallet(faucet).deployContract({ abi: build.abi, bytecode: build.bytecode, args: [decimals] }));
      return getAddress((await client.waitForTransactionReceipt({ hash, timeout: 60_000 })).contractAddress!);
    };
    const usdc = opts.usdc === 'circle' ? await deployCircleUsdc({ rpcUrl: anvil.url, chainId: anvil.chainId, serial }) : undefined;
    const token = usdc?.address ?? (await deploy(6));
    const mint = (to: Address, amount: bigint) =>
      usdc
        ? usdc.mint(to, amount)
        : serial(async () =>
            mined(await wallet(faucet).writeContract({ address: token, abi: build.abi, functionName: 'mint', args: [to, amount] })),
          );
    const sendGas = (to: Address, value: bigint) => serial(async () => mined(await wallet(faucet).sendTransaction({ to, value })));
    const fund: TestChain['fund'] = async (to, { usdcMicros, gasWei }) => {
      if (gasWei) await sendGas(to, gasWei);
      if (usdcMicros) await mint(to, usdcMicros);
    };
    if (opts.settlementUsdcMicros) await mint(settlement.address, opts.settlementUsdcMicros);
    if (opts.blockTime) await anvil.rpc('evm_setIntervalMining', [opts.blockTime]);
    const env: Record<string, string> = {
      SETTLEMENT_MODE: 'onchain',
      CHAIN_RPC_URL: anvil.url,
      CHAIN_ID: String(anvil.chainId),
      USDC_ADDRESS: token,
      SETTLEMENT_PRIVATE_KEY: ANVIL_KEYS[1],
      DEPOSIT_MNEMONIC: TEST_DEPOSIT_MNEMONIC,
      CHAIN_CONFIRMATIONS: String(opts.confirmations ?? 1),
      CHAIN_POLL_MS: '100',
      // A local chain: the development identity (DATA_DIR/dev-privy) may sign users in (src/config/chain.ts).
      ALLOW_DEV_IDENTITY_ONCHAIN: 'true',
    };
    return {
      anvil,
      client,
      token,
      usdc,
      faucet,
      settlement,
      env,
      fund,
      async newWallet(usdcMicros = 0n) {
        const account = privateKeyToAccount(generatePrivateKey());
        await fund(account.address, { gasWei: 10n ** 18n, usdcMicros });
        return account;
      },
      approve: async (from, spender, amount) =>
        mined(await wallet(from).writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [spender, amount] })),
      transfer: async (from, to, amount) =>
        mined(await wallet(from).writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] })),
      balanceOf: (owner) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
      async transfers(to) {
        const logs = await client.getLogs({ address: token, event: TRANSFER, args: to ? { to } : {}, fromBlock: 0n, toBlock: 'latest' });
        return logs.map((l) => ({
          from: l.args.from!,
          to: l.args.to!,
          value: l.args.value!,
          txHash: l.transactionHash,
          logIndex: l.logIndex,
        }));
      },
      deployToken: deploy,
      deploySanctionsOracle: () => deploySanctionsOracle({ rpcUrl: anvil.url, chainId: anvil.chainId, owner: faucet, serial }),
      stop: () => anvil.stop(),
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

export interface RpcProxy {
  url: string;
  /** Refuses every connection (and drops open ones) until resume(): the node is unreachable. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** A TCP proxy in front of the chain's RPC port, to make the node unreachable on demand. */
export async function startRpcProxy(targetPort: number): Promise<RpcProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(targetPort, '127.0.0.1');
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
      server = s;
    });
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  await listen();
  return { url: `http://127.0.0.1:${port}`, pause: close, resume: listen, stop: close };
}
