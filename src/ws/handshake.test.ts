// The handshake's signature check goes through the native recoverSigner: the signed challenge passes, its
// high-s twin (which viem would accept) and a foreign signer are invalid_signature.
import { describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AUTH_DOMAIN_DEFAULT } from '../config/schema.js';
import { buildAuthMessage } from './auth-message.js';
import { newChallenge, verifyAuthResponse } from './handshake.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const opts = { authDomain: AUTH_DOMAIN_DEFAULT, challengeTtlMs: 30_000 };

describe('verifyAuthResponse', () => {
  it('accepts the signed challenge; refuses its high-s twin and another signer', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const challenge = newChallenge();
    const signature = await account.signMessage({
      message: { raw: buildAuthMessage(AUTH_DOMAIN_DEFAULT, challenge.nonce, challenge.timestamp) },
    });
    const frame = (sig: string) => ({ type: 'auth_response', wallet_address: account.address, signature: sig });
    expect(await verifyAuthResponse(frame(signature), challenge, opts)).toEqual({ ok: true, walletAddress: account.address });
    const v = Number.parseInt(signature.slice(130), 16);
    const twin = `${signature.slice(0, 66)}${(N - BigInt(`0x${signature.slice(66, 130)}`)).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    expect(await verifyAuthResponse(frame(twin), challenge, opts)).toEqual({ ok: false, error: 'invalid_signature' });
    const other = await privateKeyToAccount(generatePrivateKey()).signMessage({
      message: { raw: buildAuthMessage(AUTH_DOMAIN_DEFAULT, challenge.nonce, challenge.timestamp) },
    });
    expect(await verifyAuthResponse(frame(other), challenge, opts)).toEqual({ ok: false, error: 'invalid_signature' });
  });
});
