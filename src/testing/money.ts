// Test helpers for money: user sessions through the real Privy exchange, and the ledger check over a
// plain pg client (run after every scenario).
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { ledgerCheckRepository, singleConnectionDb } from '../db/repositories/ledger-check.repository.js';
import { checkLedgerWith, type LedgerProblem } from '../domain/ledger/ledger.js';
import { createSession } from '../../generated/openapi/sdk.gen.js';
import { randomWallet, type TestPrivy } from './identity.js';
import { sdkClient, sent } from './sdk-client.js';

export async function newUserSession(baseUrl: string, privy: TestPrivy): Promise<{ token: string; userId: string }> {
  const wallet = randomWallet();
  const res = await sent(
    createSession({
      client: sdkClient(baseUrl),
      body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
    }),
  );
  if (!res.data) throw new Error(`session exchange answered ${res.status}: ${JSON.stringify(res.error)}`);
  return { token: res.data.session_token, userId: res.data.user_id };
}

export function ledgerProblems(sql: pg.Client | pg.Pool): Promise<LedgerProblem[]> {
  return checkLedgerWith(ledgerCheckRepository(singleConnectionDb(sql)));
}
