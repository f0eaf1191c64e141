// App tokens: the operator credits a user's app-token account from the treasury.
import type { Em } from '../../db/orm.js';
import { NotFound } from '../errors.js';
import { post } from '../ledger/ledger.js';

export async function creditAppTokens(em: Em, userId: string, amount: bigint, reference: string): Promise<bigint> {
  return em.transactional(async (tx) => {
    const user = await tx.execute<Array<{ id: string }>>('select id from users where id = ?', [userId]);
    if (!user[0]) throw new NotFound('USER_NOT_FOUND', 'no user with this id');
    const after = await post(tx, {
      kind: 'app_token_credit',
      reference,
      entries: [
        { account: { system: 'treasury' }, amount: -amount },
        { account: { userId, kind: 'user_app_token' }, amount },
      ],
    });
    return after.get(`${userId}:user_app_token`)!;
  });
}
