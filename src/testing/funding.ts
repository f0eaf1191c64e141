// A user row for a wallet with money deposited, written straight to the database (no HTTP): the medium-tier
// tests and the benches fund takers and makers this way (a maker's collateral is its wallet's user balance).
import { randomUUID } from 'node:crypto';
import type { Em } from '../db/orm.js';
import { db } from '../db/schema.js';
import { post } from '../domain/ledger/ledger.js';

/** Inserts the user (with `handle` when given) and posts a deposit of `micros` (none when 0); returns its id. */
export async function fundedUser(em: () => Em, address: string, micros: bigint, opts: { handle?: string } = {}): Promise<string> {
  const id = randomUUID();
  await db(em())
    .insertInto('users')
    .values({ id, wallet_address: address, ...(opts.handle === undefined ? {} : { handle: opts.handle }) })
    .execute();
  if (micros > 0n) {
    await em().transactional((tx) =>
      post(tx, {
        kind: 'deposit',
        reference: id,
        entries: [
          { account: { system: 'settlement_clearing' }, amount: -micros },
          { account: { userId: id, kind: 'user_available' }, amount: micros },
        ],
      }),
    );
  }
  return id;
}
