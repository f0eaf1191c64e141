// Single-use Sign-In with Ethereum nonces. Consumption is one atomic UPDATE, so a nonce signs in at
// most once even under concurrent requests, and a failed attempt burns it too.
import { randomBytes } from 'node:crypto';
import type { Em } from '../../db/orm.js';

export const NONCE_TTL_SECONDS = 300;
/** Expired nonces are deleted this long after expiry (keeps the table small without a job). */
const PURGE_AFTER = '1 hour';

/** 128 random bits as 32 hex characters (EIP-4361 wants at least 8 alphanumerics). */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

export async function issueNonce(em: Em): Promise<{ nonce: string; expiresAt: number }> {
  const nonce = newNonce();
  const rows = await em.execute<Array<{ expires_epoch: string | number }>>(
    `insert into wallet_nonces (nonce, expires_at) values (?, now() + make_interval(secs => ?))
     returning extract(epoch from expires_at) as expires_epoch`,
    [nonce, NONCE_TTL_SECONDS],
  );
  await em.execute(`delete from wallet_nonces where expires_at < now() - interval '${PURGE_AFTER}'`, [], 'run');
  return { nonce, expiresAt: Math.floor(Number(rows[0]!.expires_epoch)) };
}

/** true when the nonce was issued, is unexpired and unused; it is used from now on. */
export async function consumeNonce(em: Em, nonce: string): Promise<boolean> {
  const rows = await em.execute<Array<{ nonce: string }>>(
    `update wallet_nonces set used_at = now()
      where nonce = ? and used_at is null and expires_at > now() returning nonce`,
    [nonce],
  );
  return rows.length === 1;
}
