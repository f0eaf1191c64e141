// Custodial deposit addresses without a secret (docs/settlement-custodial.md, "The deposit mnemonic"): address `n`
// is m/44'/60'/<DEPOSIT_ACCOUNT_INDEX>'/0/<n> of DEPOSIT_MNEMONIC, and its last step is non-hardened, so the public
// extended key (DEPOSIT_XPUB) of m/44'/60'/<account>'/0 (or of the account node m/44'/60'/<account>' above it)
// derives the same addresses with no private key. API processes hand out addresses from it; the workers, which
// sweep, keep the mnemonic. Reads no environment (src/config/chain.ts hands it the parsed keys).
import { pbkdf2Sync } from 'node:crypto';
import { getAddress, keccak256, toHex, type Address } from 'viem';
import { HDKey } from 'viem/accounts';

const HARDENED = 0x8000_0000;

/** The node m/44'/60'/<account>'/0 of a BIP-39 phrase (no passphrase): its children are the deposit addresses. */
export function depositParentNode(mnemonic: string, account: number): HDKey {
  if (!Number.isInteger(account) || account < 0 || account >= HARDENED)
    throw new RangeError(`deposit account ${account} is outside 0..2^31-1`);
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  return HDKey.fromMasterSeed(seed).derive(`m/44'/60'/${account}'/0`);
}

/** DEPOSIT_XPUB of a phrase and account: the public extended key of m/44'/60'/<account>'/0 (scripts/deposit-xpub.ts prints it). */
export function depositXpubOf(mnemonic: string, account: number): string {
  return depositParentNode(mnemonic, account).publicExtendedKey;
}

/**
 * DEPOSIT_XPUB parsed into the node whose children are the deposit addresses, or the problem (never quoting the
 * value: an xprv given by mistake is a secret). Accepted: the public key of m/44'/60'/<account>'/0 (depth 4, child
 * 0), or of the account node m/44'/60'/<account>' (depth 3; its hardened index must be DEPOSIT_ACCOUNT_INDEX).
 */
export function parseDepositXpub(value: string, account: number): { node: HDKey } | { problem: string } {
  let key: HDKey;
  try {
    key = HDKey.fromExtendedKey(value.trim());
  } catch {
    return { problem: 'must be a BIP-32 extended public key (xpub...)' };
  }
  if (key.privateKey) {
    return {
      problem:
        'is an extended PRIVATE key (xprv): give its public key (xpub); the private side stays with the workers (the value is not shown)',
    };
  }
  if (key.depth === 3) {
    if (key.index !== HARDENED + account) {
      return {
        problem: `is the key of account ${key.index - HARDENED}'s node, not of DEPOSIT_ACCOUNT_INDEX ${account} (m/44'/60'/${account}')`,
      };
    }
    return { node: key.deriveChild(0) };
  }
  if (key.depth === 4 && key.index === 0) return { node: key };
  return {
    problem: `must be the public key of m/44'/60'/<account>'/0 (depth 4) or of m/44'/60'/<account>' (depth 3); this one has depth ${key.depth}`,
  };
}

// secp256k1's field prime; a compressed key's y is the square root of x^3 + 7 (p = 3 mod 4: one exponentiation).
const P = 2n ** 256n - 2n ** 32n - 977n;

function powMod(base: bigint, exp: bigint): bigint {
  let r = 1n;
  for (let b = base % P, e = exp; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
}

/** The Ethereum address of a compressed secp256k1 public key (33 bytes, 02/03 prefix). */
export function addressOfCompressedKey(key: Uint8Array): Address {
  if (key.length !== 33 || (key[0] !== 2 && key[0] !== 3)) throw new RangeError('not a compressed secp256k1 public key');
  const x = BigInt(toHex(key.subarray(1)));
  let y = powMod((x ** 3n + 7n) % P, (P + 1n) / 4n);
  if ((y * y) % P !== (x ** 3n + 7n) % P) throw new RangeError('not a point of secp256k1');
  if (Number(y & 1n) !== key[0] - 2) y = P - y;
  const xy = x.toString(16).padStart(64, '0') + y.toString(16).padStart(64, '0');
  return getAddress(`0x${keccak256(`0x${xy}`).slice(-40)}`);
}

/** The deposit address of each index, derived from the parent node's public key alone. */
export function xpubDepositAddresses(node: HDKey): (index: bigint) => Address {
  return (index) => {
    if (index < 0n || index >= BigInt(HARDENED)) throw new RangeError(`deposit index ${index} is outside 0..2^31-1`);
    return addressOfCompressedKey(node.deriveChild(Number(index)).publicKey!);
  };
}
