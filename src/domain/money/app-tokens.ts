// App tokens: the operator credits a user's app-token account from the treasury.
import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.js';
import { Conflict, NotFound } from '../errors.js';
import { microsFromDb } from '../ledger/amounts.js';
import { post, userBalances } from '../ledger/ledger.js';

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
  const user = await tx.execute<Array<{ id: string }>>('select id from users where id = ?', [userId]);
  if (!user[0]) throw new NotFound('USER_NOT_FOUND', 'no user with this id');
  const idempotencyKey = `${userId}:${key}`;
  const earlier = await tx.execute<Array<{ id: string; amount: string }>>(
    `select t.id::text as id, e.amount::text as amount from ledger_transactions t
       join ledger_entries e on e.transaction_id = t.id join ledger_accounts a on a.id = e.account_id and a.user_id = ? and a.kind = 'user_app_token'
      where t.kind = 'app_token_credit' and t.idempotency_key = ?`,
    [userId, idempotencyKey],
  );
  if (earlier[0]) {
    if (microsFromDb(earlier[0].amount) !== amount) {
      throw new Conflict(
        'IDEMPOTENCY_KEY_REUSED',
        'this idempotency_key was already used with a different request body; use a new key for a new request',
      );
    }
    return { transactionId: earlier[0].id, balance: (await userBalances(tx, userId)).appToken };
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

export async function creditAppTokens(em: Em, userId: string, amount: bigint, key: string): Promise<bigint> {
  return em.transactional(async (tx) => (await creditAppTokensOnce(tx, userId, amount, key)).balance);
}
