// The two ways to obtain a user session: a Privy identity token, or a Sign-In with Ethereum message.
// Verification happens before anything is written: a rejected sign-in creates no user and no session.
import type { Em } from '../../db/orm.js';
import { InvalidSiweMessage } from '../errors.js';
import { verifyPrivyToken, type PrivyVerifier } from './privy-token.js';
import { createUserSession } from './sessions.js';
import { checkSiwe, checkSiweSignature, parseSiwe } from './siwe.js';
import { findOrCreateWalletUser, upsertPrivyUser } from './users.js';
import { consumeNonce } from './wallet-nonces.js';

export interface SignedIn {
  userId: string;
  address: string;
  sessionId: string;
  token: string;
  expiresAt: number;
  method: 'privy' | 'wallet';
}

export async function signInWithPrivy(em: Em, verifier: PrivyVerifier, privyToken: string, ttlSeconds: number): Promise<SignedIn> {
  const identity = await verifyPrivyToken(verifier, privyToken);
  const user = await upsertPrivyUser(em, identity);
  const session = await createUserSession(em, user.id, ttlSeconds);
  return { userId: user.id, address: user.walletAddress, ...session, method: 'privy' };
}

export interface SiweSettings {
  domain: string;
  chainIds: readonly number[];
  ttlSeconds: number;
}

export async function signInWithWallet(em: Em, settings: SiweSettings, message: string, signature: string): Promise<SignedIn> {
  const parsed = parseSiwe(message);
  // The nonce is spent by its first use, whatever the outcome: a rejected attempt cannot be retried.
  if (!(await consumeNonce(em, parsed.nonce))) {
    throw new InvalidSiweMessage('the sign-in nonce is unknown, expired or already used; get a new one from GET /v1/auth/wallet/nonce');
  }
  checkSiwe(parsed, { domain: settings.domain, chainIds: settings.chainIds, now: new Date() });
  await checkSiweSignature(message, parsed.address, signature);
  const user = await findOrCreateWalletUser(em, parsed.address);
  const session = await createUserSession(em, user.id, settings.ttlSeconds);
  return { userId: user.id, address: user.walletAddress, ...session, method: 'wallet' };
}
