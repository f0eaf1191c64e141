// Builds Privy-shaped identity tokens. Used by `npm run dev:token` (development key) and by tests
// (their own keys), so both exercise exactly what the service verifies.
import { createHash } from 'node:crypto';
import { SignJWT, type CryptoKey, type KeyObject } from 'jose';
import { PRIVY_DID_PREFIX, PRIVY_ISSUER } from './privy-token.js';

/** App id (token audience) of the development identity, used when PRIVY_APP_ID is unset outside production. */
export const DEV_PRIVY_APP_ID = 'crfq-dev-app';

export interface IdentityTokenInput {
  appId: string;
  sub: string;
  /** Encoded into the `linked_accounts` claim as a JSON string, as Privy does. */
  linkedAccounts: unknown[];
  ttlSeconds: number;
  /** Defaults to now. */
  issuedAt?: Date;
  issuer?: string;
}

export async function signIdentityToken(privateKey: CryptoKey | KeyObject, input: IdentityTokenInput): Promise<string> {
  const iat = Math.floor((input.issuedAt ?? new Date()).getTime() / 1000);
  return new SignJWT({ linked_accounts: JSON.stringify(input.linkedAccounts) })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .setIssuer(input.issuer ?? PRIVY_ISSUER)
    .setAudience(input.appId)
    .setSubject(input.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.ttlSeconds)
    .sign(privateKey);
}

/** Linked accounts of a Privy user with an embedded wallet and, optionally, an X account. */
export function devLinkedAccounts(wallet: string, twitter?: { username: string; profilePictureUrl?: string }): unknown[] {
  const accounts: unknown[] = [
    { type: 'wallet', address: wallet, chain_type: 'ethereum', wallet_client_type: 'privy', connector_type: 'embedded' },
  ];
  if (twitter) {
    accounts.push({
      type: 'twitter_oauth',
      username: twitter.username,
      name: twitter.username,
      subject: createHash('sha256').update(twitter.username.toLowerCase()).digest('hex').slice(0, 16),
      profile_picture_url: twitter.profilePictureUrl ?? null,
    });
  }
  return accounts;
}

/** A stable development DID for a wallet, so one wallet always maps to one development user. */
export function devSubForWallet(wallet: string): string {
  return `${PRIVY_DID_PREFIX}dev${createHash('sha256').update(wallet.toLowerCase()).digest('hex').slice(0, 22)}`;
}
