// App tokens: the operator credits a user's app-token account from the treasury.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { Conflict, NotFound } from '../errors.js';
import { post, userBalances } from '../ledger/ledger.js';
import { repos } from '../../db/repos.js';

export interface AppTokenCredit {
  /** The ledger transaction of the credit. */
  transactionId: string;
  /** The user's app-token balance after it. */
  balance: bigint;
}

/**
 * Inside the caller's transaction: credits `amount` once per (user, idempotency key). The posting carries
 * the key under a unique index, so a second credit with it cannot commit; if one exists already, it is
 * returned (with the current balance), and another amount under the same key is 409 IDEMPOTENCY_KEY_REUSED.
 */
export async function creditAppTokensOnce(tx: Em, userId: string, amount: bigint, key: string): Promise<AppTokenCredit> {
  const repo = repos(tx).operations;
  if (!(await repo.userExists(userId))) throw new NotFound('USER_NOT_FOUND', 'no user with this id');
  const idempotencyKey = `${userId}:${key}`;
  const earlier = await repo.earlierAppTokenCredit(userId, idempotencyKey);
  if (earlier) {
    if (earlier.amount !== amount) {
      throw new Conflict(
        'IDEMPOTENCY_KEY_REUSED',
        'this idempotency_key was already used with a different request body; use a new key for a new request',
      );
    }
    return { transactionId: earlier.id, balance: (await userBalances(tx, userId)).appToken };
  }
  const transactionId = randomUUID();
  const after = await post(tx, {
    id: transactionId,
    kind: 'app_token_credit',
    reference: `app-token-credit:${key}`,
    idempotencyKey,
    entries: [
      { account: { system: 'treasury' }, amount: -amount },
      { account: { userId, kind: 'user_app_token' }, amount },
    ],
  });
  return { transactionId, balance: after.get(`${userId}:user_app_token`)! };
}
