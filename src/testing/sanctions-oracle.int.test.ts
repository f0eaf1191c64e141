// The sanctions oracle of the test chain (contracts/MockSanctionsOracle.sol through chain.deploySanctionsOracle()):
// Chainalysis's SanctionsList interface, read and written as a service and an operator would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS } from './anvil.js';
import { startTestChain, type TestChain } from './chain.js';
import type { SanctionsOracle } from './sanctions-oracle.js';

/** Chainalysis's interface as integrators declare it (only what a service reads). */
const CHAINALYSIS = parseAbi(['function isSanctioned(address addr) view returns (bool)', 'function name() pure returns (string)']);
let t: TestChain;
let oracle: SanctionsOracle;
const [a, b] = [privateKeyToAccount(ANVIL_KEYS[2]).address, privateKeyToAccount(ANVIL_KEYS[3]).address];

beforeAll(async () => {
  t = await startTestChain();
  oracle = await t.deploySanctionsOracle();
});
afterAll(() => t?.stop());

describe('MockSanctionsOracle', () => {
  it("answers Chainalysis's interface: nobody is sanctioned until the owner adds them, and removal lifts it", async () => {
    const read = (addr: `0x${string}`) =>
      t.client.readContract({ address: oracle.address, abi: CHAINALYSIS, functionName: 'isSanctioned', args: [addr] });
    expect(await t.client.readContract({ address: oracle.address, abi: CHAINALYSIS, functionName: 'name' })).toBe(
      'Chainalysis sanctions oracle',
    );
    expect([await read(a), await read(b)]).toEqual([false, false]);
    const hash = await oracle.sanction(a, b);
    expect([await read(a), await read(b)]).toEqual([true, true]);
    const receipt = await t.client.getTransactionReceipt({ hash });
    expect(receipt.logs).toHaveLength(1); // SanctionedAddressesAdded(addrs)
    await oracle.unsanction(a);
    expect([await oracle.isSanctioned(a), await oracle.isSanctioned(b)]).toEqual([false, true]);
    expect(oracle.owner.address).toBe(t.faucet.address);
  });

  it('lets only its owner change the list', async () => {
    await expect(
      t.client.simulateContract({
        account: privateKeyToAccount(ANVIL_KEYS[2]),
        address: oracle.address,
        abi: oracle.abi,
        functionName: 'addToSanctionsList',
        args: [[a]],
      }),
    ).rejects.toThrow(/caller is not the owner/);
  });
});
