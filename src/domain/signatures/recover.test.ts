// The native recovery gives what viem gives (the reference): the same address on the published worked
// example and on random vectors with v as 27/28 and 0/1; it refuses what EIP-2 refuses (high s) and
// malformed signatures; the start-up self-test fails loudly when the addon is missing or wrong.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bytesToHex, hashMessage, recoverAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { assertSignatureBackend, recoverSigner, SELF_TEST, SIGNATURE_BACKEND, SignatureBackendError } from './recover.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const hex32 = (n: bigint) => n.toString(16).padStart(64, '0');
/** The malleable twin of a signature: s -> n - s, v flipped. */
function highS(sig: Hex): Hex {
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = Number.parseInt(sig.slice(130), 16);
  return `${sig.slice(0, 66)}${hex32(N - s)}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
}
const v01 = (sig: Hex) => `${sig.slice(0, 130)}0${Number.parseInt(sig.slice(130), 16) - 27}` as Hex;

describe('recoverSigner (libsecp256k1)', () => {
  it('recovers the worked example of spec/asyncapi.yaml, whose digest is the EIP-191 hash of its 75 bytes', async () => {
    const raw =
      '0x636f6e746573742d7266712d73657276696365206d61726b65742d6d616b657220763172278dc0b52a7023492d8b67b8494129aadf15ba830596c4c8ad0ebc18b27f6100b9556900000000';
    expect(hashMessage({ raw })).toBe(SELF_TEST.digest);
    expect(recoverSigner(SELF_TEST.digest, SELF_TEST.signature)).toBe(SELF_TEST.address);
    expect(await recoverAddress({ hash: SELF_TEST.digest, signature: SELF_TEST.signature })).toBe(SELF_TEST.address);
  });

  it('agrees with viem on random keys and digests, v as 27/28 and 0/1', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        async (key, digest) => {
          const k = BigInt(bytesToHex(key));
          fc.pre(k > 0n && k < N);
          const account = privateKeyToAccount(bytesToHex(key));
          const hash = bytesToHex(digest);
          const sig = await account.sign({ hash });
          for (const s of [sig, v01(sig)]) {
            expect(recoverSigner(hash, s)).toBe(account.address);
            expect(recoverSigner(hash, s)).toBe(await recoverAddress({ hash, signature: s }));
          }
          // viem accepts the high-s twin (same address); the service refuses it.
          expect(await recoverAddress({ hash, signature: highS(sig) })).toBe(account.address);
          expect(() => recoverSigner(hash, highS(sig))).toThrow(/high-s/);
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);

  it('refuses malformed signatures: wrong length, v out of range, r or s zero or >= n, no point', () => {
    const { digest, signature } = SELF_TEST;
    const bad: Hex[] = [
      signature.slice(0, -2) as Hex,
      `${signature.slice(0, 130)}1d` as Hex,
      `${signature.slice(0, 130)}02` as Hex,
      `0x${'00'.repeat(32)}${signature.slice(66)}` as Hex,
      `${signature.slice(0, 66)}${'00'.repeat(32)}1b` as Hex,
      `0x${'ff'.repeat(32)}${signature.slice(66)}` as Hex,
      `0x${'ff'.repeat(64)}1b` as Hex,
    ];
    for (const b of bad) expect(() => recoverSigner(digest, b), b).toThrow();
  });
});

describe('assertSignatureBackend (start-up self-test)', () => {
  it('names the backend when the addon recovers the worked example', () => {
    expect(assertSignatureBackend()).toBe(SIGNATURE_BACKEND);
  });

  it('fails loudly when the addon is missing', () => {
    const missing = () => {
      throw new Error("Cannot find module 'secp256k1/bindings'");
    };
    expect(() => assertSignatureBackend(missing)).toThrow(SignatureBackendError);
    expect(() => assertSignatureBackend(missing)).toThrow(/native secp256k1 addon .* did not load: Cannot find module/);
  });

  it('fails when the addon recovers another key', () => {
    const wrong = { ecdsaRecover: () => new Uint8Array(65).fill(4) };
    expect(() => assertSignatureBackend(() => wrong)).toThrow(/self-test recovered 0x/);
  });
});
