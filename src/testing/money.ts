// Test helpers for money: user sessions through the real Privy exchange, and the ledger check over a
// plain pg client (run after every scenario).
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { ledgerCheckRepository, singleConnectionDb } from '../db/repositories/ledger-check.repository.js';
import { checkLedgerWith, type LedgerProblem } from '../domain/ledger/ledger.js';
import { call, randomWallet, type TestPrivy } from './identity.js';

export async function newUserSession(baseUrl: string, privy: TestPrivy): Promise<{ token: string; userId: string }> {
  const wallet = randomWallet();
  const res = await call(baseUrl, 'POST /v1/auth/session', {
    body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
  });
  if (res.status !== 200) throw new Error(`session exchange answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { token: res.body.session_token as string, userId: res.body.user_id as string };
}

export function ledgerProblems(sql: pg.Client | pg.Pool): Promise<LedgerProblem[]> {
  return checkLedgerWith(ledgerCheckRepository(singleConnectionDb(sql)));
}
