// The 75-byte message a market maker signs during the WebSocket handshake
// (spec/asyncapi.yaml, "Signed message"). Pure: shared by the gateway, the
// spec validator and tests, so the published worked example is checked
// against the code that verifies real signatures.

export const AUTH_DOMAIN_BYTES = 35;
export const AUTH_NONCE_BYTES = 32;
export const AUTH_TIMESTAMP_BYTES = 8;
export const AUTH_MESSAGE_BYTES = AUTH_DOMAIN_BYTES + AUTH_NONCE_BYTES + AUTH_TIMESTAMP_BYTES;

const UINT64_MAX = (1n << 64n) - 1n;
const NONCE_HEX = /^[0-9a-fA-F]{64}$/;
const SIGNATURE_HEX = /^(?:0x)?([0-9a-fA-F]{128})([0-9a-fA-F]{2})$/;

/** True when `domain` is exactly 35 characters, all ASCII (each one byte on the wire). */
export function isValidAuthDomain(domain: string): boolean {
  if (domain.length !== AUTH_DOMAIN_BYTES) return false;
  for (let i = 0; i < domain.length; i++) if (domain.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * AUTH_DOMAIN (35 ASCII bytes) || nonce (32 bytes, hex-decoded) || timestamp
 * (uint64 little-endian). The nonce's hex text is not part of the message.
 */
export function buildAuthMessage(domain: string, nonceHex: string, timestampSecs: bigint | number): Uint8Array {
  if (typeof domain !== 'string' || !isValidAuthDomain(domain)) {
    throw new TypeError(`auth domain must be exactly ${AUTH_DOMAIN_BYTES} ASCII bytes`);
  }
  if (typeof nonceHex !== 'string' || !NONCE_HEX.test(nonceHex)) {
    throw new TypeError(`nonce must be ${AUTH_NONCE_BYTES * 2} hex characters`);
  }
  const timestamp = toUint64(timestampSecs);

  const message = new Uint8Array(AUTH_MESSAGE_BYTES);
  for (let i = 0; i < AUTH_DOMAIN_BYTES; i++) message[i] = domain.charCodeAt(i);
  for (let i = 0; i < AUTH_NONCE_BYTES; i++) {
    message[AUTH_DOMAIN_BYTES + i] = Number.parseInt(nonceHex.slice(i * 2, i * 2 + 2), 16);
  }
  new DataView(message.buffer).setBigUint64(AUTH_DOMAIN_BYTES + AUTH_NONCE_BYTES, timestamp, true);
  return message;
}

function toUint64(value: bigint | number): bigint {
  if (typeof value === 'number') {
    // Above 2^53 a number no longer names one integer: demand a bigint there.
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new TypeError('timestamp must be a non-negative safe integer (use a bigint beyond 2^53 - 1)');
    }
    return BigInt(value);
  }
  if (typeof value !== 'bigint' || value < 0n || value > UINT64_MAX) {
    throw new TypeError('timestamp must be within the uint64 range');
  }
  return value;
}

/**
 * Accepts the wire form of auth_response.signature (130 hex characters, with
 * or without 0x) and returns it 0x-prefixed and lowercased, ready for viem.
 * Returns null for any other shape, including a recovery byte v outside
 * 0, 1, 27, 28 (viem throws on those; the gateway answers invalid_signature).
 */
export function normalizeSignature(sig: string): `0x${string}` | null {
  if (typeof sig !== 'string') return null;
  const match = SIGNATURE_HEX.exec(sig);
  if (!match) return null;
  const [, rs, vHex] = match as unknown as [string, string, string];
  const v = Number.parseInt(vHex, 16);
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) return null;
  return `0x${rs.toLowerCase()}${vHex.toLowerCase()}`;
}
