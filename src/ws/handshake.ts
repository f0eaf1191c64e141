// The challenge/response of spec/asyncapi.yaml "Handshake" and "Rules", without sockets or a database:
// issuing a challenge, and checking an auth_response against it in the documented order up to the
// signature. Whether the wallet is a registered market maker is asked afterwards (gateway.ts).
import { randomBytes } from 'node:crypto';
import { hashMessage } from 'viem';
import { recoverSigner } from '../domain/signatures/recover.js';
import { validateAuthResponse } from '../../generated/asyncapi/validators.js';
import type { AuthResultMessage } from '../../generated/asyncapi/types.js';
import { checksumAddress } from '../domain/market-makers/market-makers.js';
import { buildAuthMessage, normalizeSignature } from './auth-message.js';

export interface Challenge {
  /** 64 lowercase hex characters (32 CSPRNG bytes). */
  nonce: string;
  /** Unix seconds, as sent and signed. */
  timestamp: number;
  /** When it was issued (ms), for the lifetime check. */
  issuedAtMs: number;
}

export type AuthFailure = Exclude<AuthResultMessage['error'], null>;

export function newChallenge(nowMs = Date.now()): Challenge {
  return { nonce: randomBytes(32).toString('hex'), timestamp: Math.floor(nowMs / 1000), issuedAtMs: nowMs };
}

export type VerifyOutcome = { ok: true; walletAddress: string } | { ok: false; error: AuthFailure };

/**
 * Checks an auth_response (any JSON object whose type is auth_response) against the consumed challenge:
 * schema and checksum (malformed_message), lifetime (challenge_expired), signature (invalid_signature).
 * On success the wallet is returned in EIP-55 form.
 */
export async function verifyAuthResponse(
  frame: unknown,
  challenge: Challenge,
  opts: { authDomain: string; challengeTtlMs: number; nowMs?: number },
): Promise<VerifyOutcome> {
  if (!validateAuthResponse(frame)) return { ok: false, error: 'malformed_message' };
  const wallet = checksumAddress(frame.wallet_address);
  if (!wallet) return { ok: false, error: 'malformed_message' };
  if ((opts.nowMs ?? Date.now()) - challenge.issuedAtMs > opts.challengeTtlMs) return { ok: false, error: 'challenge_expired' };
  const signature = normalizeSignature(frame.signature);
  if (!signature) return { ok: false, error: 'invalid_signature' };
  let recovered: string;
  try {
    // recoverMessageAddress, natively (src/domain/signatures/recover.ts).
    recovered = recoverSigner(hashMessage({ raw: buildAuthMessage(opts.authDomain, challenge.nonce, challenge.timestamp) }), signature);
  } catch {
    return { ok: false, error: 'invalid_signature' }; // r/s not on the curve and the like
  }
  if (recovered.toLowerCase() !== wallet.toLowerCase()) return { ok: false, error: 'invalid_signature' };
  return { ok: true, walletAddress: wallet };
}
