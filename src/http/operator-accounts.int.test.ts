// Operator token rotation without a restart, on the real service (PostgreSQL, Redis, API and workers):
// OPERATOR_TOKENS_FILE is re-read while the service runs. A new token works and a removed one is refused
// once the process has re-read the file (it says so in its log); a file it cannot parse is refused and the
// accounts in force stay; the audit trail names the account that made each write.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../testing/test-service.js';
import { randomWallet } from '../testing/identity.js';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const token = (name: string) => `${name}-${randomBytes(16).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'operators-'));
const FILE = join(dir, 'operators');

/** Replaces the file in one step, as a secret mount or `mv` does. */
function writeAccounts(text: string) {
  const tmp = join(dir, `.next-${randomBytes(4).toString('hex')}`);
  writeFileSync(tmp, text);
  renameSync(tmp, FILE);
}

let t: TestService;
const ALICE_OLD = token('alice');
const ALICE_NEW = token('alice');
const BOB = token('bob');

beforeAll(async () => {
  writeAccounts(`alice ${sha(ALICE_OLD)}\n`);
  t = await startTestService('optokens', { OPERATOR_TOKENS_FILE: FILE, OPERATOR_TOKENS_RELOAD_MS: '200', OPERATOR_TOKEN: undefined });
});
afterAll(async () => t?.stop());

const audit = (bearer: string) => fetch(`${t.svc.baseUrl}/v1/admin/audit?limit=200`, { headers: { authorization: `Bearer ${bearer}` } });
const reRead = (pred: (line: Record<string, unknown>) => boolean) =>
  t.svc.waitForLog((l) => l.msg === 'operator accounts re-read from OPERATOR_TOKENS_FILE' && pred(l), 30_000);

describe('OPERATOR_TOKENS_FILE rotation', () => {
  it('a new token works and the old one is refused after the file changes, with no restart; the trail names each account', async () => {
    expect((await audit(ALICE_OLD)).status).toBe(200);
    expect((await audit(ALICE_NEW)).status).toBe(401);

    writeAccounts(`# rotated\nalice ${sha(ALICE_NEW)}\nbob ${sha(BOB)}\n`);
    await reRead((l) => JSON.stringify(l.added) === '["bob"]');
    expect((await audit(ALICE_NEW)).status).toBe(200);
    const old = await audit(ALICE_OLD);
    expect(old.status).toBe(401);
    expect(((await old.json()) as { code: string }).code).toBe('INVALID_SESSION');

    const wallet = randomWallet().address;
    const res = await fetch(`${t.svc.baseUrl}/v1/admin/market-makers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOB}`, 'content-type': 'application/json' },
      body: JSON.stringify({ wallet_address: wallet, name: 'Rotated' }),
    });
    expect(res.status).toBe(201);
    const requestId = res.headers.get('x-request-id');
    const { rows } = await t.sql.query<{ operator: string; in_transaction: boolean }>(
      'select operator, in_transaction from operator_audit where request_id = $1',
      [requestId],
    );
    expect(rows).toEqual([{ operator: 'bob', in_transaction: true }]);
  });

  it('a file that does not parse is refused and the accounts in force stay', async () => {
    const before = t.svc.logs.length;
    writeAccounts(`alice ${ALICE_NEW}\n`); // the token itself instead of its hash
    await t.svc.waitForLog((l) => l.msg === 'OPERATOR_TOKENS_FILE refused; the operator accounts in force stay', 30_000);
    expect(t.svc.logs.slice(before).some((l) => JSON.stringify(l).includes(ALICE_NEW))).toBe(false); // never logged
    expect((await audit(ALICE_NEW)).status).toBe(200);
    expect((await audit(BOB)).status).toBe(200);

    writeAccounts(`bob ${sha(BOB)}\n`); // alice's access ends
    await reRead((l) => JSON.stringify(l.removed) === '["alice"]');
    expect((await audit(ALICE_NEW)).status).toBe(401);
    expect((await audit(BOB)).status).toBe(200);
  });
});
