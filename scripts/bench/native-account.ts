// A viem LocalAccount whose signatures come from libsecp256k1 (the native addon of the npm package
// `secp256k1`, as src/domain/signatures/recover.ts recovers them) instead of viem's pure-JS curve: the
// benches' makers sign every quote on the load generator's cores, and a pure-JS signature (about 1 ms)
// per quote made the load generator compete with the service for the CPU it measures (issue 38, item 2).
// Hashing stays viem's (hashTypedData, hashMessage), so the digests are exactly what the SDK signs;
// libsecp256k1 signs deterministically (RFC 6979) with a low s, as viem does, so the signatures are equal
// byte for byte (checked once at start-up by `nativeAccount`).
import { createRequire } from 'node:module';
import { hashMessage, hashTypedData, serializeSignature, toHex, type Hex } from 'viem';
import { privateKeyToAccount, toAccount, type LocalAccount } from 'viem/accounts';

interface NativeSign {
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}

const lib = createRequire(import.meta.url)('secp256k1/bindings') as NativeSign;
const bytes = (hex: Hex) => Buffer.from(hex.slice(2), 'hex');

function signDigest(digest: Hex, key: Uint8Array): Hex {
  const { signature, recid } = lib.ecdsaSign(bytes(digest), key);
  return serializeSignature({ r: toHex(signature.subarray(0, 32)), s: toHex(signature.subarray(32, 64)), yParity: recid });
}

/** The account of `privateKey`, signing messages and typed data natively (transactions are not needed by the benches). */
export function nativeAccount(privateKey: Hex): LocalAccount {
  const key = bytes(privateKey);
  const reference = privateKeyToAccount(privateKey);
  const account = toAccount({
    address: reference.address,
    signMessage: async ({ message }) => signDigest(hashMessage(message), key),
    signTypedData: async (typed) => signDigest(hashTypedData(typed), key),
    signTransaction: () => Promise.reject(new Error('the bench accounts do not sign transactions')),
  });
  return account;
}

/** Signs one message with both curves and throws unless they agree (a wrong native signature would only show as refused quotes). */
export async function assertNativeMatchesViem(privateKey: Hex): Promise<void> {
  const message = 'bench native signer self-check';
  const [native, viem] = await Promise.all([
    nativeAccount(privateKey).signMessage({ message }),
    privateKeyToAccount(privateKey).signMessage({ message }),
  ]);
  if (native !== viem) throw new Error(`native signature ${native} differs from viem's ${viem}`);
}
