// Verifies a Privy identity token (ES256 JWT) locally against the configured verification key and
// app id, and reads the session wallet and the linked X account from its `linked_accounts` claim.
// Every failure is a 401 INVALID_IDENTITY_TOKEN that says what failed, never echoing the token.
import { errors, importSPKI, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { getAddress, isAddress } from 'viem';
import { InvalidIdentityToken, Unprocessable } from '../errors.js';

export const PRIVY_ISSUER = 'privy.io';
export const PRIVY_DID_PREFIX = 'did:privy:';

export interface PrivyVerifier {
  appId: string;
  key: CryptoKey;
}

export interface PrivyIdentity {
  /** Privy DID, `did:privy:...`. */
  sub: string;
  /** EIP-55 checksummed session wallet. */
  address: string;
  xHandle: string | null;
  xAvatarUrl: string | null;
}

export async function createPrivyVerifier(appId: string, spkiPem: string): Promise<PrivyVerifier> {
  return { appId, key: await importSPKI(spkiPem, 'ES256') };
}

/** Throws InvalidIdentityToken (401) or Unprocessable NO_LINKED_WALLET (422). */
export async function verifyPrivyToken(verifier: PrivyVerifier, token: string, now: Date = new Date()): Promise<PrivyIdentity> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, verifier.key, {
      algorithms: ['ES256'],
      issuer: PRIVY_ISSUER,
      audience: verifier.appId,
      requiredClaims: ['exp', 'sub'],
      currentDate: now,
    }));
  } catch (err) {
    throw new InvalidIdentityToken(describeJoseError(err));
  }
  const sub = payload.sub;
  if (typeof sub !== 'string' || !sub.startsWith(PRIVY_DID_PREFIX) || sub.length === PRIVY_DID_PREFIX.length) {
    throw new InvalidIdentityToken(`the identity token's subject (sub) is not a Privy DID (${PRIVY_DID_PREFIX}...)`);
  }
  const accounts = readLinkedAccounts(payload.linked_accounts);
  const wallet = pickSessionWallet(accounts);
  if (!wallet) {
    throw new Unprocessable(
      'NO_LINKED_WALLET',
      'the Privy user has no linked Ethereum wallet; create or link one in Privy, then sign in again',
    );
  }
  return { sub, address: wallet, ...pickXAccount(accounts) };
}

function describeJoseError(err: unknown): string {
  const prefix = 'the identity token could not be verified: ';
  if (err instanceof errors.JWTExpired) return `${prefix}it has expired (exp is in the past); get a fresh identity token from Privy`;
  if (err instanceof errors.JWTClaimValidationFailed) {
    switch (err.claim) {
      case 'aud':
        return `${prefix}it was issued for another Privy app (aud does not match this service's PRIVY_APP_ID)`;
      case 'iss':
        return `${prefix}it was not issued by Privy (iss must be "${PRIVY_ISSUER}")`;
      case 'exp':
        return `${prefix}it has no valid expiry (exp)`;
      case 'sub':
        return `${prefix}it has no subject (sub)`;
      default:
        return `${prefix}claim "${err.claim}" is invalid (${err.reason})`;
    }
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return `${prefix}its signature does not verify against the configured Privy verification key`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) {
    return `${prefix}it is not signed with ES256, the only algorithm Privy identity tokens use`;
  }
  return `${prefix}it is malformed (not a signed JWT of three base64url parts with a JSON header and payload)`;
}

type LinkedAccount = Record<string, unknown>;

/** The `linked_accounts` claim is a JSON-encoded string (an array is accepted too). */
export function readLinkedAccounts(claim: unknown): LinkedAccount[] {
  let value = claim;
  if (typeof claim === 'string') {
    try {
      value = JSON.parse(claim);
    } catch {
      throw new InvalidIdentityToken("the identity token's linked_accounts claim is not valid JSON");
    }
  } else if (claim === undefined) {
    throw new InvalidIdentityToken('the identity token has no linked_accounts claim');
  }
  if (!Array.isArray(value)) throw new InvalidIdentityToken("the identity token's linked_accounts claim is not a JSON array");
  return value.filter((a): a is LinkedAccount => a !== null && typeof a === 'object' && !Array.isArray(a));
}

function evmAddress(account: LinkedAccount): string | null {
  const a = account.address;
  return typeof a === 'string' && isAddress(a, { strict: false }) ? getAddress(a) : null;
}

const isEthereumWallet = (a: LinkedAccount) =>
  a.type === 'wallet' && (a.chain_type === 'ethereum' || a.chain_type === undefined) && evmAddress(a) !== null;

/** The Privy embedded wallet, else the first linked Ethereum wallet, else null. */
export function pickSessionWallet(accounts: LinkedAccount[]): string | null {
  const embedded = accounts.find((a) => isEthereumWallet(a) && a.wallet_client_type === 'privy');
  const chosen = embedded ?? accounts.find(isEthereumWallet);
  return chosen ? evmAddress(chosen) : null;
}

export function pickXAccount(accounts: LinkedAccount[]): { xHandle: string | null; xAvatarUrl: string | null } {
  const x = accounts.find((a) => a.type === 'twitter_oauth' && typeof a.username === 'string' && a.username.length > 0);
  if (!x) return { xHandle: null, xAvatarUrl: null };
  const avatar = x.profile_picture_url;
  return {
    xHandle: String(x.username).slice(0, 64),
    xAvatarUrl: typeof avatar === 'string' && /^https?:\/\//i.test(avatar) ? avatar.slice(0, 2048) : null,
  };
}
