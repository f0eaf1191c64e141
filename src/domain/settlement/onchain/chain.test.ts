// The fast custodial key derivation (depositKeyring) gives exactly viem's mnemonicToAccount accounts.
import { mnemonicToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ANVIL_MNEMONIC } from '../../../testing/anvil.js';
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

  it('refuses an index outside the non-hardened range', () => {
    expect(() => depositKeyring(ANVIL_MNEMONIC)(2n ** 31n)).toThrow(RangeError);
  });
});
