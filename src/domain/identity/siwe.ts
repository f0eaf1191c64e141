// Sign-In with Ethereum (EIP-4361): the checks that need no database, and the signature check.
// Each failure is 401 INVALID_SIWE_MESSAGE naming the check that failed.
import { getAddress, hashMessage, isAddress } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { InvalidSiweMessage } from '../errors.js';
import { normalizeSignature, recoverSigner } from '../signatures/recover.js';

/** The statement GET /v1/auth/wallet/nonce suggests (the message may carry any statement, or none). */
export const SIWE_STATEMENT = 'Sign in to contest-rfq-service';

/** The URI a sign-in message should carry: PUBLIC_URL, else the domain over https (http for a local host). */
export function siweUri(domain: string, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const local = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i.test(domain);
  return `${local ? 'http' : 'https'}://${domain}`;
}

/** Clock difference tolerated for `Issued At` in the future. */
export const SIWE_CLOCK_SKEW_MS = 60_000;

export interface SiweExpectations {
  domain: string;
  chainIds: readonly number[];
  now: Date;
}

export interface ParsedSiwe {
  /** EIP-55 checksummed signer. */
  address: string;
  nonce: string;
  domain: string;
  chainId: number;
}

/** Parses the message and reads the nonce; throws when it is not an EIP-4361 message. */
export function parseSiwe(message: string): ParsedSiwe & { fields: ReturnType<typeof parseSiweMessage> } {
  const fields = parseSiweMessage(message);
  const missing = (['domain', 'address', 'uri', 'version', 'chainId', 'nonce', 'issuedAt'] as const).filter((k) => fields[k] === undefined);
  if (missing.length) {
    throw new InvalidSiweMessage(`the message is not an EIP-4361 sign-in message (missing or unreadable: ${missing.join(', ')})`);
  }
  if (!isAddress(fields.address!, { strict: true })) {
    throw new InvalidSiweMessage('the message address is not a valid EIP-55 checksummed Ethereum address');
  }
  return { address: getAddress(fields.address!), nonce: fields.nonce!, domain: fields.domain!, chainId: fields.chainId!, fields };
}

/** Domain, chain, version and validity times. */
export function checkSiwe(parsed: ReturnType<typeof parseSiwe>, expect: SiweExpectations): void {
  const { fields } = parsed;
  const now = expect.now.getTime();
  if (fields.version !== '1') throw new InvalidSiweMessage(`the message version is "${fields.version}"; only version 1 is supported`);
  if (parsed.domain.toLowerCase() !== expect.domain.toLowerCase()) {
    throw new InvalidSiweMessage(`the message is for domain "${parsed.domain}", not this service's sign-in domain "${expect.domain}"`);
  }
  if (!expect.chainIds.includes(parsed.chainId)) {
    throw new InvalidSiweMessage(`the message's Chain ID ${parsed.chainId} is not accepted (accepted: ${expect.chainIds.join(', ')})`);
  }
  const issuedAt = fields.issuedAt!.getTime();
  if (Number.isNaN(issuedAt)) throw new InvalidSiweMessage('the message\'s "Issued At" is not an RFC 3339 date-time');
  if (issuedAt > now + SIWE_CLOCK_SKEW_MS) throw new InvalidSiweMessage('the message\'s "Issued At" is in the future');
  if (fields.expirationTime) {
    const t = fields.expirationTime.getTime();
    if (Number.isNaN(t)) throw new InvalidSiweMessage('the message\'s "Expiration Time" is not an RFC 3339 date-time');
    if (now >= t) throw new InvalidSiweMessage('the message has expired ("Expiration Time" is in the past)');
  }
  if (fields.notBefore) {
    const t = fields.notBefore.getTime();
    if (Number.isNaN(t)) throw new InvalidSiweMessage('the message\'s "Not Before" is not an RFC 3339 date-time');
    if (now < t) throw new InvalidSiweMessage('the message is not valid yet ("Not Before" is in the future)');
  }
}

/** EIP-191 personal_sign signature by the message's address (externally owned accounts). */
export async function checkSiweSignature(message: string, address: string, signature: string): Promise<void> {
  let ok = false;
  try {
    // EIP-191 digest, native recovery (src/domain/signatures/recover.ts: high-s and malformed refused).
    const sig = normalizeSignature(signature);
    ok = sig !== null && recoverSigner(hashMessage(message), sig).toLowerCase() === address.toLowerCase();
  } catch {
    ok = false; // an unrecoverable signature (e.g. invalid v) is simply not a valid one
  }
  if (!ok) throw new InvalidSiweMessage("the signature does not recover the message's address");
}
