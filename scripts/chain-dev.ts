// `npm run chain:dev`: try onchain settlement in one command (docs/settlement.md). Starts a local anvil chain
// (a block a second), deploys Circle's USDC (FiatTokenV2_2 behind its proxy, compiled on first use, a few
// seconds: src/testing/circle-usdc.ts; `npm run chain:dev -- --test-usdc` deploys the small TestUSDC of
// contracts/TestUSDC.sol instead), funds two of anvil's test wallets with USDC (they hold test ETH for gas),
// starts the service with SETTLEMENT_MODE=onchain against it on the embedded database in a fresh temporary
// DATA_DIR (the chain is fresh too: the settlement wallet's nonces start over), signs both wallets in, and
// prints a walkthrough of curl commands: a pull deposit after an approval, a withdrawal, a custodial deposit by a
// plain transfer and, on Circle's USDC, pausing the token. Ctrl-C stops everything.
// `npm run chain:dev -- --chain-only` starts the chain and the token alone (no service): it prints the RPC URL,
// the chain id, the token's address, the funded keys and the settings an operator's own API and workers need
// (src/testing/chain-dev.int.test.ts runs it).
// Test keys only (anvil's well-known accounts): never use them on a real network.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS } from '../src/testing/anvil.js';
import { startTestChain } from '../src/testing/chain.js';
import { createWalletSession, getDepositWallet, getWalletNonce } from '../generated/openapi/sdk.gen.js';
import { signSiwe } from '../src/testing/identity.js';
import { sdkClient, sent } from '../src/testing/sdk-client.js';
import { startServiceProcess } from '../src/testing/service-process.js';

const PORT = process.env.PORT ?? '3000';
const CONFIRMATIONS = process.env.CHAIN_CONFIRMATIONS ?? '2';
const USDC = 1_000_000n;
const USDC_KIND = process.argv.includes('--test-usdc') ? 'test' : 'circle';
const CHAIN_ONLY = process.argv.includes('--chain-only');

const chain = await startTestChain({ blockTime: 1, confirmations: Number(CONFIRMATIONS), usdc: USDC_KIND });
const dataDir = mkdtempSync(join(tmpdir(), 'crfq-chain-dev-'));
const [alice, bob] = [privateKeyToAccount(ANVIL_KEYS[2]), privateKeyToAccount(ANVIL_KEYS[3])];
let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
const stop = async () => {
  await service?.stop('SIGTERM');
  await chain.stop();
  rmSync(dataDir, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void stop().finally(() => process.exit(0)));

try {
  await chain.fund(alice.address, { usdcMicros: 1000n * USDC });
  await chain.fund(bob.address, { usdcMicros: 1000n * USDC });
  if (CHAIN_ONLY) {
    printChainOnly();
    await new Promise(() => undefined);
  }
  service = await startServiceProcess({
    env: {
      ...chain.env,
      NODE_ENV: 'development',
      PORT,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      CHAIN_CONFIRMATIONS: CONFIRMATIONS,
      CHAIN_DEPOSIT_SCAN_EVERY_MS: '1000',
    },
  });
  const api = service.baseUrl;
  const session = async (wallet: typeof alice) => {
    const { nonce } = (await sent(getWalletNonce({ client: sdkClient(api) }))).data!;
    const res = await sent(
      createWalletSession({ client: sdkClient(api), body: await signSiwe(wallet, { domain: `localhost:${PORT}`, nonce }) }),
    );
    if (!res.data) throw new Error(`wallet sign-in answered ${res.status}: ${JSON.stringify(res.error)}`);
    return res.data.session_token;
  };
  const [tokenA, tokenB] = [await session(alice), await session(bob)];
  const depositWallet = (await sent(getDepositWallet({ client: sdkClient(api, tokenA) }))).data as {
    address: Address;
    spender_address: Address;
  };
  // anvil's test accounts are unlocked: eth_sendTransaction needs no signature, so curl can send for them.
  const send = (from: Address, data: string) =>
    `curl -s $RPC -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"${from}","to":"${chain.token}","data":"${data}"}]}'`;
  const balanceOf = (who: Address) =>
    `curl -s $RPC -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"${chain.token}","data":"${encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [who] })}"},"latest"]}'`;
  const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [depositWallet.spender_address, 25n * USDC] });
  const custodial = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [depositWallet.address, 5n * USDC] });
  const auth = (t: string) => `-H "Authorization: Bearer ${t}"`;
  const circle = chain.usdc
    ? `  roles           pauser ${chain.usdc.roles.pauser.address}, blacklister ${chain.usdc.roles.blacklister.address} (anvil's accounts 7 and 8)\n`
    : '';
  const pause = chain.usdc
    ? `
# 5. Circle's USDC: the pauser pauses the token (every transfer reverts "Pausable: paused"), then unpauses it
curl -s $RPC -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"${chain.usdc.roles.pauser.address}","to":"${chain.token}","data":"${encodeFunctionData({ abi: chain.usdc.abi, functionName: 'pause' })}"}]}'
curl -s $RPC -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"${chain.usdc.roles.pauser.address}","to":"${chain.token}","data":"${encodeFunctionData({ abi: chain.usdc.abi, functionName: 'unpause' })}"}]}'
`
    : '';
  const json = `-H 'content-type: application/json'`;
  process.stdout.write(`
onchain settlement on a local chain: anvil ${chain.anvil.url} (chain 31337, a block a second, ${CONFIRMATIONS} confirmations)
  ${chain.usdc ? "USDC (Circle's)" : 'TestUSDC       '} ${chain.token}
${circle}  settlement      ${chain.settlement.address}  (spender_address; pays gas and withdrawals)
  wallet A        ${alice.address}  1000 USDC, signed in as TOKEN_A
  wallet B        ${bob.address}  1000 USDC, signed in as TOKEN_B
  service         ${api}  (SETTLEMENT_MODE=onchain, embedded database in ${dataDir})

export API=${api} RPC=${chain.anvil.url}
export TOKEN_A=${tokenA}
export TOKEN_B=${tokenB}

# 1. Where A deposits, and what A must approve for a pull deposit
curl -s $API/v1/users/deposit-wallet ${auth('$TOKEN_A')}

# 2. Pull deposit: A approves the settlement wallet for 25 USDC, then deposits 25 USDC (200 with the mined tx_hash)
${send(alice.address, approve)}
sleep 2   # one block a second here: the approval is mined before the deposit reads the allowance
curl -s -X POST $API/v1/users/deposit ${auth('$TOKEN_A')} ${json} -d '{"amount_micros":25000000,"idempotency_key":"'$(node -p 'crypto.randomUUID()')'"}'
curl -s $API/v1/user/available_balance ${auth('$TOKEN_A')}

# 3. Withdrawal: 10 USDC from A's app balance to wallet B, then B's USDC on chain (hex micros)
curl -s -X POST $API/v1/users/withdraw ${auth('$TOKEN_A')} ${json} -d '{"amount_micros":10000000,"destination_address":"${bob.address}","idempotency_key":"'$(cat /proc/sys/kernel/random/uuid)'"}'
${balanceOf(bob.address)}

# 4. Custodial deposit: A sends 5 USDC by a plain transfer to A's deposit address. The deposit listener
#    credits it once it has ${CONFIRMATIONS} confirmations (a few seconds: A's balance grows by 5 USDC), then a
#    sweep moves it into the settlement wallet and A's deposit address holds 0 again (docs/settlement-custodial.md)
${send(alice.address, custodial)}
${balanceOf(depositWallet.address)}
sleep 10; curl -s $API/v1/user/available_balance ${auth('$TOKEN_A')}
sleep 10; ${balanceOf(depositWallet.address)}
${pause}
Ctrl-C stops the service and the chain.
`);
  await new Promise(() => undefined);
} catch (err) {
  process.stderr.write(`chain:dev: ${(err as Error).message}\n${service?.rawOutput.slice(-20).join('\n') ?? ''}\n`);
  await stop();
  process.exit(1);
}

/** --chain-only: what an operator's own service needs to settle on this chain, and the keys that hold its funds. */
function printChainOnly() {
  const { DEPOSIT_MNEMONIC: mnemonic, SETTLEMENT_PRIVATE_KEY: settlementKey, ...settings } = chain.env;
  const lines = Object.entries({ ...settings, CHAIN_CONFIRMATIONS: CONFIRMATIONS })
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  process.stdout.write(`
a local chain for your own API and workers (test keys only: never on a real network)
  rpc url         ${chain.anvil.url}
  chain id        ${chain.anvil.chainId}
  ${chain.usdc ? "USDC (Circle's)" : 'TestUSDC       '} ${chain.token}
  settlement      ${chain.settlement.address}  key ${settlementKey}  (SETTLEMENT_PRIVATE_KEY: test ETH for gas)
  wallet A        ${alice.address}  key ${ANVIL_KEYS[2]}  1000 USDC and test ETH
  wallet B        ${bob.address}  key ${ANVIL_KEYS[3]}  1000 USDC and test ETH
  deposit phrase  ${mnemonic}  (DEPOSIT_MNEMONIC)

# the service's settings (add DATABASE_URL, REDIS_URL... as usual)
${lines}
SETTLEMENT_PRIVATE_KEY=${settlementKey}
DEPOSIT_MNEMONIC="${mnemonic}"

Ctrl-C stops the chain.
`);
  process.stdout.write(
    `${JSON.stringify({ chain_dev: { rpc_url: chain.anvil.url, chain_id: chain.anvil.chainId, token: chain.token, settlement_key: settlementKey, wallet_keys: [ANVIL_KEYS[2], ANVIL_KEYS[3]] } })}\n`,
  );
}
