// Single-use Sign-In with Ethereum nonces. Consumption is one atomic UPDATE, so a nonce signs in at
// most once even under concurrent requests, and a failed attempt burns it too. Expired nonces are deleted
// an hour after expiry on each issue (keeps the table small without a job).
import { randomBytes } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { repos } from '../../db/repos.js';

export const NONCE_TTL_SECONDS = 300;

/** 128 random bits as 32 hex characters (EIP-4361 wants at least 8 alphanumerics). */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

export async function issueNonce(em: Em): Promise<{ nonce: string; expiresAt: number }> {
  const nonce = newNonce();
  const repo = repos(em).identity;
  const row = await repo.insertNonce(nonce, NONCE_TTL_SECONDS);
  await repo.purgeExpiredNonces();
  return { nonce, expiresAt: Math.floor(Number(row.expires_epoch)) };
}

/** true when the nonce was issued, is unexpired and unused; it is used from now on. */
export async function consumeNonce(em: Em, nonce: string): Promise<boolean> {
  return (await repos(em).identity.consumeNonce(nonce)) !== undefined;
}
