// DEPOSIT_XPUB (issue 34 item 6; docs/settlement-custodial.md, "The deposit mnemonic"): the extended public key
// derives exactly the addresses the workers' mnemonic derives, for several indexes and accounts; a private key,
// another account's key or a key that disagrees with the mnemonic is refused; in production an API process refuses
// the settlement key and the mnemonic (src/config/role.ts).
import { HDKey, mnemonicToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../config/load.js';
import {
  addressOfCompressedKey,
  depositParentNode,
  depositXpubOf,
  parseDepositXpub,
  xpubDepositAddresses,
} from '../../../config/deposit-xpub.js';
import { roleProblems } from '../../../config/role.js';
import { depositKeyring } from '../../../adapters/chain/chain.js';
import { ANVIL_MNEMONIC } from '../../../testing/anvil.js';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const INDEXES = [0n, 1n, 2n, 7n, 1000n, 2n ** 31n - 1n];
const ONCHAIN = {
  SETTLEMENT_MODE: 'onchain',
  CHAIN_ID: '31337',
  CHAIN_RPC_URL: 'http://127.0.0.1:8545',
  USDC_ADDRESS: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  SETTLEMENT_ADDRESS: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  ALLOW_DEV_IDENTITY_ONCHAIN: 'true',
};
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as ConfigError).problems;
  }
  return [];
};
const nodeOf = (xpub: string, account: number) => {
  const parsed = parseDepositXpub(xpub, account);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.node;
};

describe('DEPOSIT_XPUB derives the mnemonic’s deposit addresses', () => {
  it("m/44'/60'/<account>'/0/<n> from the public key alone, equal to the workers' keyring and viem's mnemonicToAccount", () => {
    for (const [mnemonic, account] of [
      [MNEMONIC, 0],
      [ANVIL_MNEMONIC, 0],
      [ANVIL_MNEMONIC, 1],
      [MNEMONIC, 9],
    ] as const) {
      const xpub = depositXpubOf(mnemonic, account);
      expect(xpub).toMatch(/^xpub/);
      const fromXpub = xpubDepositAddresses(nodeOf(xpub, account));
      const keyring = depositKeyring(mnemonic, account);
      for (const i of INDEXES) expect(fromXpub(i)).toBe(keyring(i).address);
      for (const i of [0, 3, 1000]) {
        expect(fromXpub(BigInt(i))).toBe(mnemonicToAccount(mnemonic, { accountIndex: account, addressIndex: i }).address);
      }
    }
    // Published vectors: the test phrase's first address, and anvil's well-known first account.
    expect(xpubDepositAddresses(nodeOf(depositXpubOf(MNEMONIC, 0), 0))(0n)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(xpubDepositAddresses(nodeOf(depositXpubOf(ANVIL_MNEMONIC, 0), 0))(0n)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });

  it("takes the account node's xpub (m/44'/60'/<account>', what wallets export) too, when its account is DEPOSIT_ACCOUNT_INDEX", () => {
    const accountXpub = HDKey.fromMasterSeed(Buffer.from('00'.repeat(64), 'hex')).derive("m/44'/60'/3'").publicExtendedKey;
    const viaAccount = xpubDepositAddresses(nodeOf(accountXpub, 3));
    const parent = HDKey.fromMasterSeed(Buffer.from('00'.repeat(64), 'hex')).derive("m/44'/60'/3'/0");
    for (const i of INDEXES) expect(viaAccount(i)).toBe(addressOfCompressedKey(parent.deriveChild(Number(i)).publicKey!));
    expect(parseDepositXpub(accountXpub, 2)).toEqual({
      problem: expect.stringMatching(/account 3's node, not of DEPOSIT_ACCOUNT_INDEX 2/),
    });
  });

  it('refuses a private key (without quoting it), garbage, another depth, and indexes outside 0..2^31-1', () => {
    const xprv = depositParentNode(MNEMONIC, 0).privateExtendedKey;
    const refused = parseDepositXpub(xprv, 0) as { problem: string };
    expect(refused.problem).toMatch(/extended PRIVATE key/);
    expect(refused.problem).not.toContain(xprv);
    expect(parseDepositXpub('xpub-not-a-key', 0)).toEqual({ problem: expect.stringMatching(/extended public key/) });
    const deep = depositParentNode(MNEMONIC, 0).deriveChild(5).publicExtendedKey;
    expect(parseDepositXpub(deep, 0)).toEqual({ problem: expect.stringMatching(/depth 5/) });
    const change = HDKey.fromMasterSeed(Buffer.from('00'.repeat(64), 'hex')).derive("m/44'/60'/0'/1").publicExtendedKey;
    expect(parseDepositXpub(change, 0)).toHaveProperty('problem');
    const at = xpubDepositAddresses(nodeOf(depositXpubOf(MNEMONIC, 0), 0));
    expect(() => at(2n ** 31n)).toThrow(RangeError);
    expect(() => at(-1n)).toThrow(RangeError);
  });
});

describe('DEPOSIT_XPUB in the configuration', () => {
  it('an API process with SETTLEMENT_ADDRESS and DEPOSIT_XPUB loads no secret', () => {
    const chain = loadConfig({ ...ONCHAIN, DEPOSIT_XPUB: depositXpubOf(MNEMONIC, 0) }).chain!;
    expect(chain.settlementKey).toBeUndefined();
    expect(chain.depositMnemonic).toBeUndefined();
    expect(chain.depositXpub).toBe(depositXpubOf(MNEMONIC, 0));
  });

  it('beside DEPOSIT_MNEMONIC it must be the same node; a bad one names the key; production wants DEPOSIT_ACCOUNT_INDEX', () => {
    const env = { ...ONCHAIN, DEPOSIT_MNEMONIC: MNEMONIC };
    expect(problemsOf({ ...env, DEPOSIT_XPUB: depositXpubOf(MNEMONIC, 0) })).toEqual([]);
    expect(problemsOf({ ...env, DEPOSIT_ACCOUNT_INDEX: '4', DEPOSIT_XPUB: depositXpubOf(MNEMONIC, 4) })).toEqual([]);
    expect(problemsOf({ ...env, DEPOSIT_XPUB: depositXpubOf(ANVIL_MNEMONIC, 0) }).join('\n')).toMatch(
      /DEPOSIT_XPUB: is not the key of DEPOSIT_MNEMONIC's m\/44'\/60'\/0'\/0/,
    );
    expect(problemsOf({ ...env, DEPOSIT_ACCOUNT_INDEX: '1', DEPOSIT_XPUB: depositXpubOf(MNEMONIC, 0) }).join('\n')).toMatch(
      /DEPOSIT_XPUB: is not/,
    );
    expect(problemsOf({ ...ONCHAIN, DEPOSIT_XPUB: 'xpub123' }).join('\n')).toMatch(/DEPOSIT_XPUB: must be a BIP-32 extended public key/);
    const prod = { ...ONCHAIN, NODE_ENV: 'production', DEPOSIT_XPUB: depositXpubOf(MNEMONIC, 0) };
    expect(problemsOf(prod).join('\n')).toMatch(
      /DEPOSIT_ACCOUNT_INDEX: required when NODE_ENV=production with DEPOSIT_MNEMONIC or DEPOSIT_XPUB/,
    );
  });
});

describe('what an API process may be given (src/config/role.ts)', () => {
  const KEY = `0x${'11'.repeat(32)}`;
  const withKeys = { NODE_ENV: 'production' as const, SETTLEMENT_PRIVATE_KEY: KEY, DEPOSIT_MNEMONIC_FILE: '/run/secrets/mnemonic' };

  it('in production an API process given the settlement key or the mnemonic (inline or as a file) is refused, naming both', () => {
    const problems = roleProblems(withKeys, 'api');
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^SETTLEMENT_PRIVATE_KEY \(or SETTLEMENT_PRIVATE_KEY_FILE\): refused in an API process when NODE_ENV=production .*SETTLEMENT_ADDRESS/,
    );
    expect(problems[1]).toMatch(
      /^DEPOSIT_MNEMONIC \(or DEPOSIT_MNEMONIC_FILE\): refused in an API process when NODE_ENV=production .*DEPOSIT_XPUB/,
    );
    expect(problems.join()).not.toContain('11'.repeat(32));
    // loadConfig names them beside every other problem, for the role the process gives it.
    const env = {
      ...ONCHAIN,
      NODE_ENV: 'production',
      SETTLEMENT_ADDRESS: '',
      SETTLEMENT_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
      DEPOSIT_MNEMONIC: MNEMONIC,
    };
    const named = (role?: 'api' | 'workers') => {
      try {
        loadConfig(env, { role });
      } catch (err) {
        return (err as ConfigError).problems.join('\n');
      }
      return '';
    };
    expect(named('api')).toMatch(
      /SETTLEMENT_PRIVATE_KEY \(or SETTLEMENT_PRIVATE_KEY_FILE\): refused in an API process[\s\S]*DEPOSIT_MNEMONIC \(or DEPOSIT_MNEMONIC_FILE\): refused/,
    );
    expect(named('workers')).not.toMatch(/refused in an API process/);
    expect(named()).not.toMatch(/refused in an API process/);
  });

  it('the keyless API, the workers, one process of every role, and development are not refused', () => {
    expect(roleProblems({ NODE_ENV: 'production' }, 'api')).toEqual([]);
    expect(roleProblems(withKeys, 'workers')).toEqual([]);
    expect(roleProblems(withKeys, 'all')).toEqual([]);
    expect(roleProblems({ ...withKeys, NODE_ENV: 'development' }, 'api')).toEqual([]);
  });
});
