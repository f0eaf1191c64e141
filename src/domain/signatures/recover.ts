// The one secp256k1 recovery of the service (SIWE sign-in, the market-maker handshake, RFQ orders and
// quotes): libsecp256k1 through the native addon of the npm package `secp256k1`, about 64 µs a recovery
// against 1.2 ms in viem's pure-JS curve. Loaded from `secp256k1/bindings`, never the package root: the
// root silently falls back to pure JS when the addon fails to load. The start-up self-test
// (assertSignatureBackend) recovers a published worked example and refuses to start when it fails.
// High-s signatures (s > n/2, the malleable twin of every valid signature) are refused, as EIP-2 and
// OpenZeppelin's ECDSA do. viem stays for signing and as the reference in tests. See docs/fill-path.md.
import { createRequire } from 'node:module';
import { getAddress, keccak256, type Address, type Hex } from 'viem';

/** What the service needs of the addon (the `secp256k1/bindings` export). */
export interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

/** The name /readyz and the logs give the backend. */
export const SIGNATURE_BACKEND = 'libsecp256k1';

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * The worked example of spec/asyncapi.yaml (the market-maker handshake): the EIP-191 digest of its 75 raw
 * bytes, its signature and the address it recovers to (src/domain/signatures/recover.test.ts checks the
 * digest against viem's hashMessage of those bytes).
 */
export const SELF_TEST = {
  digest: '0x55d193350b4b7a94a604da10bdb6312984311ae41fd7d269836a9365b28fed7c' as Hex,
  signature:
    '0x2cfe48aa8ee4973273137ca78b8485222eb570adf89f32ee811d500653ff457f60902b942cbbae11e7a177e3372d574a3166fb50943162dd5c023bf135e84c0e1c' as Hex,
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' as Address,
};

export class SignatureBackendError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SignatureBackendError';
  }
}

const loadBindings = (): NativeSecp256k1 => createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;

let native: NativeSecp256k1 | null = null;

/** The addon, loaded on first use (a load failure throws SignatureBackendError). */
function backend(): NativeSecp256k1 {
  if (!native) native = loadBackend(loadBindings);
  return native;
}

function loadBackend(load: () => NativeSecp256k1): NativeSecp256k1 {
  try {
    return load();
  } catch (err) {
    throw new SignatureBackendError(
      `the native secp256k1 addon (npm package secp256k1, secp256k1/bindings) did not load: ${(err as Error).message}. ` +
        'Reinstall the dependencies on this platform (npm ci); the service does not fall back to a pure-JS curve',
      { cause: err },
    );
  }
}

const SIGNATURE = /^(?:0x)?([0-9a-fA-F]{128})([0-9a-fA-F]{2})$/;

/**
 * The wire form of a signature (130 hex, with or without 0x) 0x-prefixed and lowercased, or null for any
 * other shape, including a recovery byte v outside 27, 28, 0, 1.
 */
export function normalizeSignature(sig: unknown): Hex | null {
  if (typeof sig !== 'string') return null;
  const m = SIGNATURE.exec(sig);
  if (!m) return null;
  const v = Number.parseInt(m[2]!, 16);
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) return null;
  return `0x${m[1]!.toLowerCase()}${m[2]!.toLowerCase()}`;
}

/** Whether the signature's s is in the upper half of the curve order (refused: EIP-2). */
export const isHighS = (signature: Hex) => BigInt(`0x${signature.slice(66, 130)}`) > HALF_N;

const hexBytes = (hex: string) => Buffer.from(hex.startsWith('0x') ? hex.slice(2) : hex, 'hex');

/**
 * The address whose key signed the 32-byte `hash`. `signature` is 0x + r (32 bytes) + s (32 bytes) + v (27, 28,
 * 0 or 1). Throws on anything else: a malformed signature, v out of range, r or s zero or out of range,
 * high s (s > n/2), no point on the curve.
 */
export function recoverSigner(hash: Hex, signature: Hex, lib: NativeSecp256k1 = backend()): Address {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new TypeError('a signature is 0x + 65 bytes of hex');
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new TypeError('a digest is 0x + 32 bytes of hex');
  const v = Number.parseInt(signature.slice(130), 16);
  const recid = v >= 27 ? v - 27 : v;
  if (recid !== 0 && recid !== 1) throw new RangeError(`v must be 27, 28, 0 or 1 (got ${v})`);
  if (isHighS(signature)) throw new RangeError('high-s signature (s > n/2) refused (EIP-2)');
  const key = lib.ecdsaRecover(hexBytes(signature.slice(2, 130)), recid, hexBytes(hash), false);
  return getAddress(`0x${keccak256(key.subarray(1)).slice(26)}`);
}

/**
 * Start-up self-test: loads the addon and recovers the worked example. Throws SignatureBackendError (the
 * process refuses to start) when the addon is missing or recovers anything else. `load` is for tests.
 */
export function assertSignatureBackend(load: () => NativeSecp256k1 = loadBindings): string {
  const lib = loadBackend(load);
  let got: string;
  try {
    got = recoverSigner(SELF_TEST.digest, SELF_TEST.signature, lib);
  } catch (err) {
    throw new SignatureBackendError(`the ${SIGNATURE_BACKEND} self-test failed: ${(err as Error).message}`, { cause: err });
  }
  if (got !== SELF_TEST.address) {
    throw new SignatureBackendError(`the ${SIGNATURE_BACKEND} self-test recovered ${got}, not the worked example's ${SELF_TEST.address}`);
  }
  native = lib;
  return SIGNATURE_BACKEND;
}
