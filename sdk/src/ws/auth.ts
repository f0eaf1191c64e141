// The market-maker handshake's signed message (spec/asyncapi.yaml, "Authentication"): 75 bytes,
// AUTH_DOMAIN (35 ASCII bytes) || nonce (32 bytes, hex-decoded) || timestamp (uint64 little-endian),
// signed with EIP-191 personal_sign.
import type { Hex, LocalAccount } from 'viem';
import { AUTH_DOMAIN_DEFAULT } from '../../../generated/asyncapi/types.ts';

/** The service's default domain-separation prefix (a deployment may configure another 35-byte one). */
export const DEFAULT_AUTH_DOMAIN: string = AUTH_DOMAIN_DEFAULT;

/** The 75 bytes a market maker signs for a challenge. Throws on a domain or nonce of the wrong shape. */
export function authMessageBytes(domain: string, nonceHex: string, timestamp: number | bigint): Uint8Array {
  if (domain.length !== 35 || !/^[\x00-\x7f]*$/.test(domain)) throw new Error('AUTH_DOMAIN must be 35 ASCII bytes');
  if (!/^[0-9a-fA-F]{64}$/.test(nonceHex)) throw new Error('nonce must be 64 hex characters');
  const bytes = new Uint8Array(75);
  for (let i = 0; i < 35; i++) bytes[i] = domain.charCodeAt(i);
  for (let i = 0; i < 32; i++) bytes[35 + i] = parseInt(nonceHex.slice(2 * i, 2 * i + 2), 16);
  new DataView(bytes.buffer).setBigUint64(67, BigInt(timestamp), true);
  return bytes;
}

/** The EIP-191 personal_sign signature of the 75-byte message (0x-prefixed, v = 27/28). */
export function signAuthChallenge(account: LocalAccount, domain: string, nonceHex: string, timestamp: number | bigint): Promise<Hex> {
  return account.signMessage({ message: { raw: authMessageBytes(domain, nonceHex, timestamp) } });
}
