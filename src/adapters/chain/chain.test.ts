// The fast custodial key derivation (depositKeyring) gives exactly viem's mnemonicToAccount accounts.
import { mnemonicToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ANVIL_MNEMONIC } from '../../testing/anvil.js';
import { depositKeyring } from './chain.js';

describe('depositKeyring', () => {
  it("derives m/44'/60'/0'/0/<index> like mnemonicToAccount", () => {
    const keyring = depositKeyring(ANVIL_MNEMONIC);
    for (const i of [0, 1, 2, 7, 1000]) {
      expect(keyring(BigInt(i)).address).toBe(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i }).address);
    }
    // anvil's well-known first account.
    expect(keyring(0n).address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it("derives m/44'/60'/<account>'/0/<index> for a deployment's DEPOSIT_ACCOUNT_INDEX, disjoint from every other account's", () => {
    const [a0, a1, a9] = [depositKeyring(ANVIL_MNEMONIC, 0), depositKeyring(ANVIL_MNEMONIC, 1), depositKeyring(ANVIL_MNEMONIC, 9)];
    for (const i of [0, 3, 1000]) {
      expect(a1(BigInt(i)).address).toBe(mnemonicToAccount(ANVIL_MNEMONIC, { accountIndex: 1, addressIndex: i }).address);
    }
    const seen = new Set<string>();
    for (const keyring of [a0, a1, a9]) for (let i = 0n; i < 200n; i++) seen.add(keyring(i).address);
    expect(seen.size).toBe(600); // two deployments with one mnemonic and their own indexes never derive one address
    expect(() => depositKeyring(ANVIL_MNEMONIC, 2 ** 31)).toThrow(RangeError);
  });

  it('refuses an index outside the non-hardened range', () => {
    expect(() => depositKeyring(ANVIL_MNEMONIC)(2n ** 31n)).toThrow(RangeError);
  });
});
